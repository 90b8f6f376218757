#!/usr/bin/env python3
"""Generate listings.jsonl: residential property listings of an estate agency network in the
Netherlands, Belgium and Germany (field names mix snake_case and camelCase).

Deterministic (seeded, Python stdlib only). Run from any directory:
    python3 bench/structured/es/gen_listings.py
The data is a snapshot taken on 2025-06-30. `soldOn` is only present on sold listings; it is left
out of the record (not written as null) while a property is still on the market. `days_on_market`
is soldOn - listedOn for a sold listing and 2025-06-30 - listedOn for an unsold one.
"""
import json
import os
import random
from datetime import date, timedelta

SEED = 20250630
N = 350
SNAPSHOT = date(2025, 6, 30)
FIRST_LISTED = date(2023, 1, 9)
LAST_LISTED = date(2025, 6, 27)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "listings.jsonl")

rng = random.Random(SEED)

# city -> (country, share of listings, price per square metre, property type weights,
#          {neighbourhood: (weight, oldest yearBuilt, newest yearBuilt, canal nearby)})
CITIES = {
    "Amsterdam": ("NL", 52, 7300, {"apartment": 60, "studio": 18, "townhouse": 14, "house": 8}, {
        "Jordaan": (3, 1640, 1930, True),
        "De Pijp": (3, 1880, 1935, True),
        "Oud-Zuid": (2, 1895, 1940, False),
        "Oost": (2, 1890, 2015, True),
        "Noord": (2, 1925, 2024, False),
    }),
    "Utrecht": ("NL", 40, 5300, {"apartment": 45, "studio": 12, "townhouse": 25, "house": 18}, {
        "Binnenstad": (2, 1600, 1920, True),
        "Lombok": (2, 1890, 1935, True),
        "Wittevrouwen": (2, 1880, 1930, False),
        "Leidsche Rijn": (3, 1998, 2024, False),
    }),
    "Rotterdam": ("NL", 40, 4300, {"apartment": 50, "studio": 12, "townhouse": 20, "house": 18}, {
        "Kralingen": (3, 1900, 1975, False),
        "Kop van Zuid": (2, 1995, 2023, False),
        "Blijdorp": (2, 1930, 1960, False),
        "Delfshaven": (2, 1880, 1990, True),
    }),
    "The Hague": ("NL", 32, 4500, {"apartment": 45, "studio": 10, "townhouse": 25, "house": 20}, {
        "Statenkwartier": (2, 1895, 1935, False),
        "Scheveningen": (2, 1905, 2020, False),
        "Bezuidenhout": (2, 1920, 1985, False),
    }),
    "Eindhoven": ("NL", 24, 3900, {"apartment": 35, "studio": 10, "townhouse": 25, "house": 30}, {
        "Strijp": (2, 2005, 2024, False),
        "Woensel": (2, 1950, 1995, False),
        "Stratum": (2, 1910, 1980, False),
    }),
    "Antwerp": ("BE", 34, 3300, {"apartment": 45, "studio": 10, "townhouse": 25, "house": 20}, {
        "Zurenborg": (2, 1890, 1915, False),
        "Het Eilandje": (2, 2000, 2023, True),
        "Berchem": (2, 1920, 2010, False),
    }),
    "Ghent": ("BE", 28, 3500, {"apartment": 40, "studio": 12, "townhouse": 28, "house": 20}, {
        "Patershol": (2, 1650, 1920, True),
        "Sint-Amandsberg": (2, 1920, 2015, False),
        "Ledeberg": (2, 1900, 1990, False),
    }),
    "Brussels": ("BE", 30, 3800, {"apartment": 55, "studio": 15, "townhouse": 20, "house": 10}, {
        "Ixelles": (2, 1880, 1970, False),
        "Etterbeek": (2, 1900, 1980, False),
        "Saint-Gilles": (2, 1885, 1935, False),
    }),
    "Cologne": ("DE", 24, 4700, {"apartment": 55, "studio": 12, "townhouse": 18, "house": 15}, {
        "Ehrenfeld": (2, 1900, 2015, False),
        "Sülz": (2, 1905, 1965, False),
        "Deutz": (2, 1950, 2022, False),
    }),
    "Düsseldorf": ("DE", 20, 4900, {"apartment": 55, "studio": 10, "townhouse": 20, "house": 15}, {
        "Oberkassel": (2, 1895, 1930, False),
        "Pempelfort": (2, 1900, 1975, False),
        "Bilk": (2, 1950, 2020, False),
    }),
    "Berlin": ("DE", 26, 5400, {"apartment": 65, "studio": 15, "townhouse": 12, "house": 8}, {
        "Prenzlauer Berg": (2, 1885, 1915, False),
        "Kreuzberg": (2, 1870, 1990, True),
        "Charlottenburg": (2, 1890, 1960, False),
    }),
}

# city -> [(first name, last name, weight)]; two agents share the first name Sanne
AGENTS = {
    "Amsterdam": [("Sanne", "de Vries", 1.4), ("Pieter", "Jansen", 1.0)],
    "Utrecht": [("Lotte", "Bakker", 1.0), ("Sanne", "Mulder", 0.9)],
    "Rotterdam": [("Daan", "Visser", 1.2), ("Fleur", "van Dijk", 0.8)],
    "The Hague": [("Bram", "Meijer", 1.0)],
    "Eindhoven": [("Noor", "Hendriks", 1.0)],
    "Antwerp": [("Lucas", "Peeters", 1.0), ("Elise", "Janssens", 0.8)],
    "Ghent": [("Marie", "Claes", 1.0)],
    "Brussels": [("Julien", "Dubois", 1.0), ("Camille", "Lambert", 0.9)],
    "Cologne": [("Lena", "Schmidt", 1.0)],
    "Düsseldorf": [("Felix", "Wagner", 1.0)],
    "Berlin": [("Anna", "Fischer", 1.0), ("Tobias", "Weber", 0.7)],
}

AREA = {"studio": (24, 45), "apartment": (45, 140), "townhouse": (95, 185), "house": (115, 265)}
BEDROOMS = {"studio": (0, 0), "apartment": (1, 3), "townhouse": (2, 4), "house": (3, 6)}
TYPE_FACTOR = {"studio": 1.12, "apartment": 1.0, "townhouse": 0.97, "house": 0.93}
LABELS = "ABCDEFG"
LABEL_FACTOR = {"A": 1.08, "B": 1.04, "C": 1.0, "D": 0.97, "E": 0.94, "F": 0.91, "G": 0.88}

OPENERS = {
    "studio": ["Compact studio in {nb}, ideal as a first home.",
               "Bright studio in the heart of {nb}.",
               "Efficient studio on a well-kept street in {nb}."],
    "apartment": ["Bright {bd}-bedroom apartment in {nb}.",
                  "Light-filled {bd}-bedroom apartment in popular {nb}.",
                  "Well-kept {bd}-bedroom apartment close to the centre of {nb}."],
    "townhouse": ["Charming {bd}-bedroom townhouse in {nb}.",
                  "Family-friendly {bd}-bedroom townhouse on a leafy street in {nb}.",
                  "Characterful {bd}-bedroom townhouse in {nb}."],
    "house": ["Detached {bd}-bedroom family house in {nb}.",
              "Generous {bd}-bedroom house with plenty of space in {nb}.",
              "Handsome {bd}-bedroom house in sought-after {nb}."],
}
CLOSERS = [
    "Shops, schools and public transport are within easy reach.",
    "Cafés and restaurants are just around the corner.",
    "A short bike ride from the city centre.",
    "Ready to move into.",
    "Contact the agent to arrange a visit.",
]


def pick(weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def energy_label(year, renovated):
    if year >= 2015:
        idx = rng.choices([0, 1], weights=[85, 15])[0]
    elif year >= 2000:
        idx = rng.choices([0, 1, 2], weights=[35, 50, 15])[0]
    elif year >= 1980:
        idx = rng.choices([1, 2, 3], weights=[25, 45, 30])[0]
    elif year >= 1945:
        idx = rng.choices([2, 3, 4, 5], weights=[25, 35, 25, 15])[0]
    else:
        idx = rng.choices([3, 4, 5, 6], weights=[25, 30, 25, 20])[0]
    if renovated:
        idx = max(0, idx - rng.choice([1, 2]))
    return LABELS[idx]


def build_description(ptype, nb, bedrooms, year, canal, has_garden, has_parking, feats):
    parts = [rng.choice(OPENERS[ptype]).format(nb=nb, bd=bedrooms)]
    if "renovated" in feats:
        parts.append(rng.choice([
            f"Fully renovated in {feats['renovated']}.",
            "Recently renovated kitchen and bathroom.",
            f"Tastefully renovated in {feats['renovated']} with a modern kitchen.",
        ]))
    if year < 1930:
        parts.append(rng.choice(["Period details such as high ceilings and ornate mouldings.",
                                 "Original features from the early days of the building."]))
    elif year >= 2015:
        parts.append("Modern new-build with triple glazing and excellent insulation.")
    if "canal" in feats:
        parts.append(rng.choice(["Lovely canal view from the living room.",
                                 "The main bedroom enjoys a canal view."]))
    if "balcony" in feats:
        parts.append(rng.choice(["The south-facing balcony catches the afternoon sun.",
                                 "A generous balcony overlooks the street.",
                                 "Sheltered balcony off the living room."]))
    if "rooftop" in feats:
        parts.append("Private rooftop terrace with open views over the city.")
    if "elevator" in feats:
        parts.append("The building has an elevator.")
    if "fireplace" in feats:
        parts.append(rng.choice(["Original fireplace in the living room.",
                                 "Cosy living room with a wood-burning fireplace."]))
    if "attic" in feats:
        parts.append("Spacious attic with room for a home office.")
    if "cellar" in feats:
        parts.append("Dry cellar for extra storage.")
    if "solar" in feats:
        parts.append("Solar panels on the roof keep energy bills low.")
    if "sauna" in feats:
        parts.append("Wellness corner with a private sauna.")
    if has_garden:
        parts.append(rng.choice(["The garden is south-facing and well maintained.",
                                 "Secluded back garden with a sunny terrace.",
                                 "Low-maintenance garden with a bike shed."]))
    if has_parking:
        parts.append(rng.choice(["Private parking space included.",
                                 "Comes with a parking spot in the underground garage.",
                                 "Parking on the driveway."]))
    if "quiet" in feats:
        parts.append("Located on a quiet street.")
    parts.append(rng.choice(CLOSERS))
    return " ".join(parts)


def make_record(city):
    country, _, ppsqm, type_weights, nbs = CITIES[city]
    ptype = pick(type_weights)
    nb = pick({k: v[0] for k, v in nbs.items()})
    _, y0, y1, canal_nb = nbs[nb]
    year = rng.randint(y0, y1)
    lo, hi = AREA[ptype]
    area = rng.randint(lo, hi)
    blo, bhi = BEDROOMS[ptype]
    bedrooms = rng.randint(blo, bhi)
    if ptype == "apartment" and area > 100:
        bedrooms = max(bedrooms, 2)
    if ptype == "house" and area > 200:
        bedrooms = max(bedrooms, 4)
    if ptype == "studio" or bedrooms <= 1:
        bathrooms = 1
    elif ptype == "apartment":
        bathrooms = rng.choices([1, 2], weights=[70, 30])[0]
    else:
        bathrooms = rng.choices([1, 2, 3], weights=[35, 50, 15])[0] if bedrooms >= 3 else rng.choice([1, 2])

    feats = {}
    if year < 2000 and rng.random() < (0.45 if year < 1950 else 0.3):
        feats["renovated"] = rng.randint(max(year + 20, 2008), 2024)
    label = energy_label(year, "renovated" in feats)

    has_garden = {"studio": False,
                  "apartment": rng.random() < 0.15,
                  "townhouse": rng.random() < 0.8,
                  "house": rng.random() < 0.95}[ptype]
    parking_p = {"studio": 0.08, "apartment": 0.3, "townhouse": 0.45, "house": 0.8}[ptype]
    if city in ("Amsterdam", "Utrecht") and nb not in ("Noord", "Leidsche Rijn"):
        parking_p /= 2
    has_parking = rng.random() < parking_p

    if canal_nb and ptype in ("apartment", "studio", "townhouse") and rng.random() < 0.4:
        feats["canal"] = True
    if ptype in ("apartment", "studio") and not has_garden and rng.random() < 0.5:
        feats["balcony"] = True
    if ptype == "apartment" and "balcony" not in feats and rng.random() < 0.12:
        feats["rooftop"] = True
    if ptype in ("apartment", "studio") and (year >= 1960 or rng.random() < 0.15) and rng.random() < 0.45:
        feats["elevator"] = True
    if ptype in ("house", "townhouse") and year < 1950 and rng.random() < 0.45:
        feats["fireplace"] = True
    if ptype in ("house", "townhouse") and rng.random() < 0.3:
        feats["attic"] = True
    if ptype == "house" and rng.random() < 0.3:
        feats["cellar"] = True
    if ptype in ("house", "townhouse") and (year >= 2005 or label in "AB") and rng.random() < 0.5:
        feats["solar"] = True
    if ptype == "house" and area > 170 and rng.random() < 0.12:
        feats["sauna"] = True
    if rng.random() < 0.3:
        feats["quiet"] = True

    factor = TYPE_FACTOR[ptype] * LABEL_FACTOR[label]
    factor *= 1.05 if "renovated" in feats else 1.0
    factor *= 1.04 if has_garden else 1.0
    factor *= 1.03 if has_parking else 1.0
    factor *= 1.06 if "canal" in feats else 1.0
    factor *= rng.uniform(0.88, 1.12)
    price = int(round(ppsqm * area * factor / 1000.0)) * 1000

    # the network has grown, so more properties came on the market recently
    span = (LAST_LISTED - FIRST_LISTED).days
    listed = FIRST_LISTED + timedelta(days=int(span * rng.random() ** 0.7))
    # time needed to sell: quicker for efficient homes; some overpriced listings go stale
    base = rng.lognormvariate(4.2, 0.55)
    base *= 1.0 + 0.05 * LABELS.index(label)
    if rng.random() < 0.12:
        base *= 4
    dom_if_sold = max(6, int(base))
    sold_on = listed + timedelta(days=dom_if_sold)
    is_sold = sold_on <= SNAPSHOT
    if is_sold:
        dom = dom_if_sold
    else:
        dom = (SNAPSHOT - listed).days

    first, last = rng.choices([(f, l) for f, l, _ in AGENTS[city]],
                              weights=[w for _, _, w in AGENTS[city]])[0]
    rec = {
        "listingId": None,
        "property_type": ptype,
        "city": city,
        "neighbourhood": nb,
        "country_code": country,
        "asking_price": price,
        "currency": "EUR",
        "floorAreaSqm": area,
        "bedrooms": bedrooms,
        "bathrooms": bathrooms,
        "yearBuilt": year,
        "energy_label": label,
        "has_garden": has_garden,
        "hasParking": has_parking,
        "is_sold": is_sold,
        "listedOn": listed.isoformat(),
    }
    if is_sold:
        rec["soldOn"] = sold_on.isoformat()
    rec.update({
        "agentFirstName": first,
        "agentLastName": last,
        "days_on_market": dom,
        "description": build_description(ptype, nb, bedrooms, year, canal_nb, has_garden,
                                         has_parking, feats),
    })
    return rec


def main():
    shares = {c: v[1] for c, v in CITIES.items()}
    assert sum(shares.values()) == N, sum(shares.values())
    records = []
    for city, count in shares.items():
        for _ in range(count):
            records.append(make_record(city))
    # listing ids follow the date a property came on the market
    order = sorted(range(len(records)), key=lambda i: (records[i]["listedOn"], i))
    out = []
    for n, i in enumerate(order):
        rec = records[i]
        rec["listingId"] = f"LST-{20001 + n}"
        out.append(rec)
    with open(OUT, "w", encoding="utf-8") as f:
        for rec in out:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(out)} records to {OUT}")


if __name__ == "__main__":
    main()
