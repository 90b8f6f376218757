#!/usr/bin/env python3
"""Generate lost_property.jsonl: items handed in to the lost-property office of a regional
public-transport operator (trams, buses, metro and regional trains) in seven cities in NL, BE,
FR and DE, found Feb 2024 - Oct 2025.

Seeded and standard-library only, so every run writes the same file. Field names are a mix of
snake_case and camelCase, as in an index that grew over time. A field that does not apply to a
record is left out (no nulls):
  - brand            missing on unbranded items (keys, documents, many umbrellas ...)
  - vehicleNumber    missing when the item was found at a station or stop, not on a vehicle
  - owner_first_name / ownerLastName / claimed_date   only on claimed items
  - claimFeeEur      only on claimed items for which a fee was paid
"""
import datetime as dt
import json
import os
import random

SEED = 20261129
N = 350
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "lost_property.jsonl")

START = dt.date(2024, 2, 1)
END = dt.date(2025, 10, 31)          # last day of the export

# city -> (country, weight, lines by mode, stops, desks with weights)
CITIES = {
    "Rotterdam": ("NL", 60,
                  {"metro": ["M1", "M2"], "tram": ["T21", "T23"], "bus": ["B32", "B44"], "regional train": ["RE11"]},
                  ["Rotterdam Centraal", "Beurs", "Blaak", "Zuidplein", "Kralingse Zoom"],
                  [("Rotterdam Centraal Desk", 7), ("Zuidplein Desk", 3)]),
    "The Hague": ("NL", 45,
                  {"tram": ["T1", "T9", "T17"], "bus": ["B24", "B26"]},
                  ["Den Haag Centraal", "Spui", "Hollands Spoor", "Scheveningen Noorderstrand"],
                  [("Den Haag Centraal Desk", 1)]),
    "Antwerp": ("BE", 45,
                {"tram": ["T4", "T7", "T10"], "bus": ["B30", "B34"]},
                ["Antwerpen-Centraal", "Groenplaats", "Meir", "Zuid"],
                [("Antwerpen Centraal Desk", 1)]),
    "Brussels": ("BE", 60,
                 {"metro": ["M5", "M6"], "tram": ["T81", "T92"], "bus": ["B71"], "regional train": ["RE12"]},
                 ["Bruxelles-Midi", "De Brouckere", "Schuman", "Louise", "Montgomery"],
                 [("Bruxelles-Midi Desk", 6), ("Schuman Desk", 4)]),
    "Lille": ("FR", 45,
              {"metro": ["M3", "M4"], "tram": ["T51"], "bus": ["B12", "B18"], "regional train": ["RE13"]},
              ["Lille Flandres", "Lille Europe", "Rihour", "Republique Beaux-Arts"],
              [("Lille Flandres Desk", 1)]),
    "Cologne": ("DE", 55,
                {"tram": ["T16", "T18"], "bus": ["B133", "B136"], "regional train": ["RE1", "RE9"]},
                ["Dom/Hbf", "Neumarkt", "Heumarkt", "Ebertplatz", "Deutz"],
                [("Cologne Neumarkt Desk", 1)]),
    "Aachen": ("DE", 40,
               {"bus": ["B3", "B7", "B33"], "regional train": ["RE4"]},
               ["Aachen Hbf", "Bushof", "Elisenbrunnen", "Ponttor"],
               [("Aachen Bushof Desk", 6), ("Cologne Neumarkt Desk", 4)]),
}

MODE_WEIGHT = {"metro": 4, "tram": 4, "bus": 3, "regional train": 2}

STAFF = {
    "Rotterdam Centraal Desk": ["Marieke de Vries", "Sander Bakker"],
    "Zuidplein Desk": ["Yusuf Demir"],
    "Den Haag Centraal Desk": ["Anouk Visser", "Ruben Smit"],
    "Antwerpen Centraal Desk": ["Jonas Peeters", "Els Maes"],
    "Bruxelles-Midi Desk": ["Claire Dubois", "Karim Benali"],
    "Schuman Desk": ["Sofie Claes"],
    "Lille Flandres Desk": ["Julien Lefebvre", "Camille Moreau"],
    "Cologne Neumarkt Desk": ["Lukas Becker", "Anna Schmitz"],
    "Aachen Bushof Desk": ["Tobias Krause"],
}

COLOURS = ["black", "grey", "blue", "red", "brown", "green", "white", "pink", "silver", "beige"]

# category -> (weight, claim probability, subtypes)
# subtype -> (value range, weight range in g, brands (None = unbranded), fragile probability,
#             id-document probability, features, colours)
CATEGORIES = {
    "electronics": (14, 0.65, {
        "smartphone": ((120, 1100), (140, 230), ["Apple", "Samsung", "Google", "Xiaomi"], 1.0, 0.0,
                       ["with a cracked screen", "in a leather case", "in a clear silicone case",
                        "with a cracked screen and a pop socket on the back", "with a photo of a dog as lock screen"]),
        "tablet": ((150, 900), (420, 720), ["Apple", "Samsung", "Lenovo"], 1.0, 0.0,
                   ["in a folding cover", "with a cracked screen", "with a stylus clipped to the cover"]),
        "laptop": ((300, 2200), (1150, 2300), ["Apple", "Lenovo", "Dell", "HP"], 1.0, 0.0,
                   ["with stickers on the lid", "in a padded sleeve", "with a charging cable"]),
        "headphones": ((40, 380), (180, 330), ["Sony", "Bose", "JBL", "Apple"], 0.6, 0.0,
                       ["in a zipped case", "with one ear cushion missing", "with a charging cable"]),
        "e-reader": ((80, 220), (170, 240), ["Kobo", "Amazon"], 1.0, 0.0,
                     ["in a folding cover", "with a cracked screen"]),
    }),
    "bag": (13, 0.55, {
        "backpack": ((20, 180), (400, 2600), ["Eastpak", "Herschel", "Fjallraven", "Nike", None], 0.1, 0.2,
                     ["with a broken zip", "containing school books and a pencil case", "containing a water bottle and gym clothes",
                      "with a name tag on the strap", "containing a laptop charger"]),
        "handbag": ((30, 450), (300, 1200), ["Kipling", "Michael Kors", "Guess", None], 0.1, 0.45,
                    ["with a broken zip", "containing make-up and a hairbrush", "with a gold-coloured chain strap",
                     "containing a purse and a diary"]),
        "suitcase": ((40, 260), (2500, 9000), ["Samsonite", "American Tourister", None], 0.1, 0.3,
                     ["with a name tag on the handle", "with one wheel missing", "containing clothes for a weekend trip"]),
        "sports bag": ((15, 90), (600, 3200), ["Adidas", "Nike", "Puma"], 0.0, 0.05,
                       ["containing football boots and shin pads", "containing a towel and swimming gear", "with a broken zip"]),
    }),
    "wallet": (12, 0.85, {
        "wallet": ((10, 160), (60, 200), ["Fossil", "Tommy Hilfiger", "Calvin Klein", None], 0.0, 0.75,
                   ["containing a bank card and some cash", "containing a driving licence", "worn at the corners",
                    "containing loyalty cards and receipts", "containing a bank card and a library card"]),
        "purse": ((10, 140), (50, 180), ["Guess", "Kipling", None], 0.0, 0.55,
                  ["containing coins and a bank card", "with a clasp closure", "containing a transit pass"]),
        "card holder": ((5, 60), (20, 70), ["Bellroy", None], 0.0, 0.6,
                        ["containing a transit pass and an ID card", "containing a student card"]),
    }),
    "keys": (9, 0.7, {
        "key ring": ((5, 40), (40, 160), [None], 0.0, 0.0,
                     ["with three keys and a bottle opener", "with a car key and a house key",
                      "with a small plush keyring", "with a bicycle key", "with a key fob for an office building"]),
        "car key": ((60, 320), (30, 90), ["Volkswagen", "Toyota", "Renault", "BMW"], 0.2, 0.0,
                    ["on a lanyard", "with a spare house key", "with a leather fob"]),
    }),
    "clothing": (14, 0.25, {
        "jacket": ((25, 300), (500, 1600), ["Zara", "H&M", "The North Face", "Uniqlo", None], 0.0, 0.05,
                   ["with a torn sleeve", "with a hood", "with gloves in the pocket", "children's size"]),
        "scarf": ((8, 90), (90, 260), ["H&M", "Zara", None], 0.0, 0.0,
                  ["knitted by hand", "with a tartan pattern", "made of wool"]),
        "cap": ((8, 45), (70, 140), ["Nike", "Adidas", "New Era", None], 0.0, 0.0,
                ["with a club logo", "children's size"]),
        "gloves": ((8, 70), (60, 200), ["Roeckl", "H&M", None], 0.0, 0.0,
                   ["made of leather", "knitted by hand", "children's size"]),
    }),
    "umbrella": (10, 0.12, {
        "umbrella": ((5, 60), (250, 650), ["Knirps", "Fulton", None, None, None], 0.0, 0.0,
                     ["with a bent spoke", "with a wooden handle", "with a company logo", "that folds up small, in its sleeve"]),
    }),
    "documents": (8, 0.8, {
        "passport": ((0, 0), (30, 50), [None], 0.0, 1.0,
                     ["in a plastic sleeve", "with a boarding pass inside", "in a passport cover"]),
        "ID card": ((0, 0), (5, 15), [None], 0.0, 1.0,
                    ["in a card sleeve", "found loose on the floor"]),
        "folder": ((0, 0), (150, 900), [None], 0.0, 0.5,
                   ["with medical records", "with job application papers", "with school reports and a residence permit",
                    "with tax papers"]),
    }),
    "jewellery": (7, 0.6, {
        "ring": ((30, 1800), (3, 15), ["Pandora", "Swarovski", None], 0.3, 0.0,
                 ["engraved with initials", "set with a small stone", "gold-coloured"]),
        "necklace": ((20, 900), (8, 40), ["Pandora", "Swarovski", None], 0.3, 0.0,
                     ["with a heart pendant", "with a broken clasp", "engraved with a date"]),
        "watch": ((40, 2500), (40, 180), ["Casio", "Seiko", "Fossil", "Tissot"], 0.8, 0.0,
                  ["with a leather strap", "with a scratched glass", "engraved with initials on the back"]),
        "bracelet": ((15, 400), (10, 60), ["Pandora", None], 0.2, 0.0,
                     ["with charms", "with a broken clasp"]),
    }),
    "glasses": (8, 0.5, {
        "reading glasses": ((15, 120), (20, 40), [None, "Ray-Ban"], 0.9, 0.0,
                            ["in a hard case", "with a scratched lens", "with a neck cord"]),
        "sunglasses": ((20, 260), (25, 45), ["Ray-Ban", "Oakley", None], 0.9, 0.0,
                       ["in a hard case", "with a scratched lens", "without a case"]),
        "prescription glasses": ((90, 600), (20, 40), ["Ray-Ban", "Hugo Boss", None], 0.9, 0.0,
                                 ["in a hard case", "with a bent arm", "in a soft pouch"]),
    }),
    "toy": (5, 0.45, {
        "plush rabbit": ((5, 35), (80, 300), [None, "Steiff"], 0.0, 0.0,
                         ["with a missing ear", "well loved and a bit grubby", "with a name tag"]),
        "toy car": ((5, 40), (50, 250), ["Lego", "Playmobil", None], 0.2, 0.0,
                    ["with a missing wheel", "with a remote control"]),
        "doll": ((8, 60), (150, 400), ["Playmobil", None], 0.0, 0.0,
                 ["in a pink dress", "with a missing shoe"]),
    }),
}

NOTES_VEHICLE = [
    "Found under a seat by the driver at the end of the shift.",
    "Handed in by the driver at the terminus.",
    "Handed in by a passenger who saw it left behind.",
    "Found by the cleaning crew during the night clean.",
    "Found on the luggage rack by a ticket inspector.",
    "Found wedged between two seats by the cleaning crew.",
    "Handed in by a ticket inspector after the last run.",
    "Found in the pushchair area near the middle doors.",
]
NOTES_STATION = [
    "Left on a bench on the platform.",
    "Found next to the ticket machine.",
    "Handed in at the service point by a passenger.",
    "Found by station security near the escalator.",
    "Found on the platform after the evening rush.",
    "Left at the waiting shelter and handed in by a passenger.",
    "Found by the cleaning crew in the station hall.",
]

FIRST = ["Sophie", "Daan", "Lotte", "Bram", "Emma", "Thomas", "Julie", "Lucas", "Noor", "Finn",
         "Marie", "Hugo", "Lena", "Maximilian", "Chloe", "Louis", "Fatima", "Mehmet", "Ines", "Pieter",
         "Hanna", "Jan", "Elise", "Victor", "Sara", "Milan", "Amira", "Felix", "Zoe", "Arthur"]
LAST = ["Janssen", "de Jong", "Peeters", "Dubois", "Muller", "Schneider", "Van Damme", "Martin",
        "Bakker", "Lambert", "Fischer", "Wouters", "Meijer", "Leroy", "Hoffmann", "Willems", "Mertens",
        "Girard", "Koch", "van Dijk", "Jacobs", "Roux", "Wagner", "Hendriks", "Bernard", "Vos",
        "Klein", "Dumont", "Smeets", "Yilmaz"]


def pick_weighted(rng, pairs):
    total = sum(w for _, w in pairs)
    x = rng.uniform(0, total)
    for v, w in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][0]


def round_value(v):
    if v < 30:
        return int(round(v))
    return int(round(v / 5.0) * 5)


def main():
    rng = random.Random(SEED)
    span = (END - START).days
    raw = []
    used_owner_names = set()
    for _ in range(N):
        city = pick_weighted(rng, [(c, v[1]) for c, v in CITIES.items()])
        country, _, lines, stops, desks = CITIES[city]
        mode = pick_weighted(rng, [(m, MODE_WEIGHT[m]) for m in lines])
        line = rng.choice(lines[mode])
        stop = rng.choice(stops)
        desk = pick_weighted(rng, desks)
        cat = pick_weighted(rng, [(c, v[0]) for c, v in CATEGORIES.items()])
        _, claim_p, subtypes = CATEGORIES[cat]
        sub = rng.choice(sorted(subtypes))
        (vlo, vhi), (wlo, whi), brands, frag_p, id_p, features = subtypes[sub]
        brand = rng.choice(brands)
        colour = rng.choice(COLOURS)
        if cat == "documents":
            colour = rng.choice(["blue", "red", "black", "green", "white"])
        feature = rng.choice(features)

        # skew value towards the low end of the range
        value = round_value(vlo + (vhi - vlo) * (rng.random() ** 1.6)) if vhi > 0 else 0
        weight = rng.randint(wlo, whi)
        fragile = rng.random() < frag_p
        id_words = ("ID card", "driving licence", "passport", "residence permit")
        has_id = rng.random() < id_p or any(w in feature or w == sub for w in id_words)

        found = START + dt.timedelta(days=rng.randint(0, span))
        lag = rng.choice([0, 0, 0, 1, 1, 1, 2, 3])
        registered = min(found + dt.timedelta(days=lag), END)

        on_vehicle = rng.random() < 0.68
        vehicle = None
        if on_vehicle:
            if mode == "regional train":
                vehicle = str(rng.randint(1001, 1099))
            elif mode == "metro":
                vehicle = str(rng.randint(5201, 5299))
            elif mode == "tram":
                vehicle = str(rng.randint(3001, 3199))
            else:
                vehicle = str(rng.randint(7001, 7399))
        note = rng.choice(NOTES_VEHICLE if on_vehicle else NOTES_STATION)

        # claim
        p = claim_p
        if has_id:
            p = min(0.92, p + 0.1)
        if value > 500:
            p = min(0.95, p + 0.1)
        claimed = rng.random() < p
        claimed_date = None
        if claimed:
            delay = min(int(rng.expovariate(1 / 9.0)), 85)
            claimed_date = registered + dt.timedelta(days=delay)
            if claimed_date > END:
                claimed = False
                claimed_date = None

        forwarded = False
        if not claimed:
            if has_id and rng.random() < 0.8:
                forwarded = True
            elif value >= 700 and rng.random() < 0.6:
                forwarded = True

        if claimed:
            days = (claimed_date - registered).days
        elif forwarded:
            days = min(rng.randint(3, 14), (END - registered).days)
        else:
            days = min(90, (END - registered).days)

        fee = None
        if claimed and cat != "documents":
            if value >= 500:
                fee = 20.0
            elif value >= 100:
                fee = 10.0
            elif value >= 30:
                fee = 5.0
            if fee is not None and has_id:
                fee = None        # fee waived for items with ID documents
            if fee is not None and rng.random() < 0.12:
                fee = 2.5         # reduced fee for season-ticket holders

        owner = None
        if claimed:
            while True:
                owner = (rng.choice(FIRST), rng.choice(LAST))
                if owner not in used_owner_names:
                    used_owner_names.add(owner)
                    break

        staff = rng.choice(STAFF[desk])

        noun = sub
        brand_txt = f"{brand} " if brand else ""
        description = f"{colour.capitalize()} {brand_txt}{noun} {feature}."
        if cat == "documents":
            description = f"{colour.capitalize()} {noun} {feature}."
        if has_id and not any(w in description for w in id_words):
            description += " An ID card was found inside."

        raw.append({
            "found": found, "registered": registered, "cat": cat, "brand": brand, "colour": colour,
            "description": description, "line": line, "mode": mode, "stop": stop, "city": city,
            "country": country, "desk": desk, "value": value, "weight": weight, "has_id": has_id,
            "fragile": fragile, "claimed": claimed, "forwarded": forwarded, "owner": owner,
            "claimed_date": claimed_date, "fee": fee, "days": days, "staff": staff, "note": note,
            "vehicle": vehicle,
        })

    # reference codes: LP-<year registered>-<serial>, serials increase with the registration date
    raw.sort(key=lambda r: (r["registered"], r["found"], r["description"]))
    serial = {}
    for r in raw:
        y = r["registered"].year
        serial[y] = serial.get(y, 0) + rng.randint(1, 9)
        r["ref"] = f"LP-{y}-{serial[y]:05d}"

    with open(OUT, "w", encoding="utf-8") as f:
        for r in raw:
            rec = {
                "item_ref": r["ref"],
                "category": r["cat"],
            }
            if r["brand"]:
                rec["brand"] = r["brand"]
            rec["colour"] = r["colour"]
            rec["description"] = r["description"]
            rec["lineCode"] = r["line"]
            rec["transport_mode"] = r["mode"]
            rec["stop_name"] = r["stop"]
            rec["city"] = r["city"]
            rec["countryCode"] = r["country"]
            if r["vehicle"]:
                rec["vehicleNumber"] = r["vehicle"]
            rec["found_date"] = r["found"].isoformat()
            rec["registeredDate"] = r["registered"].isoformat()
            rec["desk"] = r["desk"]
            rec["estimatedValueEur"] = r["value"]
            rec["weight_g"] = r["weight"]
            rec["containsIdDocuments"] = r["has_id"]
            rec["is_fragile"] = r["fragile"]
            rec["claimed"] = r["claimed"]
            rec["forwardedToPolice"] = r["forwarded"]
            if r["owner"]:
                rec["owner_first_name"] = r["owner"][0]
                rec["ownerLastName"] = r["owner"][1]
                rec["claimed_date"] = r["claimed_date"].isoformat()
            if r["fee"] is not None:
                rec["claimFeeEur"] = r["fee"]
            rec["daysInStorage"] = r["days"]
            rec["registered_by"] = r["staff"]
            rec["finderNote"] = r["note"]
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(raw)} records to {OUT}")


if __name__ == "__main__":
    main()
