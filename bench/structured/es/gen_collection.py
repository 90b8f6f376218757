#!/usr/bin/env python3
"""Generate collection.jsonl: objects in the collection of a (fictional) art museum.

Mixed field naming (some camelCase, some snake_case). Deterministic (seeded, Python stdlib only).
Run from any directory:
    python3 bench/structured/es/gen_collection.py
Fields that do not apply to an object are left out of the record rather than written as null:
`acquired_on` only exists for objects acquired after 1990, `gallery` only for objects on display.
"""
import json
import os
import random
from datetime import date, timedelta

SEED = 20250412
N = 320
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collection.jsonl")

rng = random.Random(SEED)

# (first name, last name, ISO alpha-2 nationality, active from, active to, fame, object types with weights)
# Shared first names: Jan (2), Anna (2), Louis (2). Shared last names: Verhoeven (2), Moreau (2), Tanaka (2).
ARTISTS = [
    ("Jan", "Verhoeven", "NL", 1625, 1668, 6.0, {"painting": 5, "print": 2}),
    ("Anna", "Verhoeven", "NL", 1880, 1925, 1.5, {"painting": 3, "textile": 2}),
    ("Jan", "de Wit", "NL", 1640, 1690, 2.5, {"painting": 3, "ceramic": 2}),
    ("Pieter", "Claes", "NL", 1610, 1655, 3.0, {"painting": 4, "print": 1}),
    ("Mies", "Bakker", "NL", 1955, 2015, 0.8, {"photograph": 3, "sculpture": 2}),
    ("Claire", "Moreau", "FR", 1860, 1905, 4.0, {"painting": 5, "print": 1}),
    ("Louis", "Moreau", "FR", 1840, 1885, 2.0, {"sculpture": 4, "painting": 1}),
    ("Camille", "Roux", "FR", 1890, 1935, 2.5, {"painting": 3, "print": 2, "photograph": 1}),
    ("Louis", "Peeters", "BE", 1870, 1915, 1.2, {"painting": 2, "ceramic": 2, "sculpture": 1}),
    ("Hiroshi", "Tanaka", "JP", 1790, 1850, 3.0, {"print": 5, "textile": 1}),
    ("Yuki", "Tanaka", "JP", 1960, 2018, 0.9, {"photograph": 3, "ceramic": 2}),
    ("Kenji", "Mori", "JP", 1700, 1760, 1.8, {"ceramic": 4, "textile": 1}),
    ("Emily", "Carter", "US", 1905, 1960, 2.2, {"photograph": 4, "painting": 2}),
    ("Robert", "Hayes", "US", 1945, 2005, 3.5, {"painting": 3, "sculpture": 2, "print": 1}),
    ("Thomas", "Whitfield", "GB", 1760, 1810, 3.2, {"painting": 4, "print": 1}),
    ("Margaret", "Hale", "GB", 1850, 1900, 1.0, {"textile": 4, "ceramic": 1}),
    ("Karl", "Brandt", "DE", 1900, 1950, 2.0, {"print": 3, "photograph": 2, "painting": 1}),
    ("Anna", "Keller", "DE", 1920, 1975, 1.6, {"sculpture": 3, "ceramic": 2}),
    ("Marco", "Bellini", "IT", 1490, 1535, 9.0, {"painting": 4, "sculpture": 1}),
    ("Lucia", "Ferri", "IT", 1950, 2020, 1.3, {"sculpture": 3, "textile": 1}),
    ("Carmen", "Ortiz", "ES", 1900, 1960, 2.8, {"painting": 3, "ceramic": 2}),
    ("Wei", "Chen", "CN", 1720, 1780, 2.4, {"ceramic": 4, "textile": 2}),
]
ARTIST_WEIGHTS = [1.6, 1.0, 0.9, 0.9, 0.8, 1.5, 1.0, 1.0, 0.8, 1.2, 0.8, 0.9,
                  1.0, 1.0, 1.0, 0.8, 0.9, 0.8, 0.6, 0.7, 0.9, 0.8]

MEDIA = {
    "painting": [("oil on canvas", 6), ("oil on panel", 3), ("tempera on panel", 1),
                 ("acrylic on canvas", 2), ("watercolour on paper", 2)],
    "sculpture": [("bronze", 5), ("marble", 3), ("carved wood", 2), ("terracotta", 2)],
    "print": [("etching", 3), ("woodcut", 3), ("lithograph", 2), ("screenprint", 1)],
    "photograph": [("gelatin silver print", 4), ("albumen print", 1), ("chromogenic print", 2)],
    "textile": [("wool tapestry", 3), ("embroidered silk", 3), ("printed cotton", 2)],
    "ceramic": [("porcelain", 4), ("glazed stoneware", 3), ("earthenware", 2)],
}
# media that only make sense in some periods
MODERN_ONLY = {"acrylic on canvas": 1950, "screenprint": 1950, "chromogenic print": 1950,
               "gelatin silver print": 1880}
OLD_ONLY = {"tempera on panel": 1560, "albumen print": 1900}

TITLES = {
    "painting": (["Still Life with", "Portrait of", "View of", "Landscape near", "Interior with",
                  "Study of"],
                 {"Still Life with": ["Lemons", "Oysters", "a Silver Jug", "Tulips", "a Dead Hare",
                                      "Grapes", "a Pewter Plate"],
                  "Portrait of": ["a Young Woman", "a Merchant", "the Artist's Mother", "a Boy",
                                  "a Scholar", "a Lady in Blue", "an Old Man"],
                  "View of": ["the Harbour", "a Canal", "the River at Dusk", "the Old Town",
                              "a Windmill", "the Cathedral"],
                  "Landscape near": ["the Dunes", "a Village", "the Forest Edge", "the Mountains",
                                     "a Farm"],
                  "Interior with": ["a Reading Woman", "a Piano", "Musicians", "an Open Window"],
                  "Study of": ["Clouds", "Hands", "a Tree", "Horses", "the Sea"]}),
    "sculpture": (["Figure of", "Bust of", "Head of", "Standing", "Torso"],
                  {"Figure of": ["a Dancer", "a Saint", "Mercury", "a Seated Woman", "a Bather"],
                   "Bust of": ["a Philosopher", "a General", "a Young Girl", "the Poet"],
                   "Head of": ["a Child", "a Horse", "a Warrior", "Medusa"],
                   "Standing": ["Figure", "Woman", "Bear", "Youth"],
                   "Torso": ["I", "II", "III", "in Motion"]}),
    "print": (["Sheet with", "View of", "Waves at", "Market at", "Night at"],
              {"Sheet with": ["Studies of Beggars", "Three Heads", "Flowers", "Birds"],
               "View of": ["the Bridge", "Mount Fuji", "the Bay", "the Ruins"],
               "Waves at": ["the Coast", "Dawn", "the Point"],
               "Market at": ["Noon", "the Square", "the Harbour"],
               "Night at": ["the Station", "the Theatre", "the River"]}),
    "photograph": (["Street in", "Portrait of", "Workers at", "Shadows in", "Window in"],
                   {"Street in": ["Rain", "Winter", "the Morning", "the City"],
                    "Portrait of": ["a Dancer", "a Fisherman", "Two Sisters", "a Mechanic"],
                    "Workers at": ["the Docks", "the Mill", "the Station"],
                    "Shadows in": ["the Courtyard", "the Stairwell", "August"],
                    "Window in": ["Kyoto", "Paris", "Berlin", "Utrecht"]}),
    "textile": (["Tapestry with", "Panel with", "Banner with", "Cover with"],
                {"Tapestry with": ["a Hunting Scene", "the Seasons", "a Garden", "Unicorns"],
                 "Panel with": ["Cranes", "Peonies", "Geometric Pattern", "Pomegranates"],
                 "Banner with": ["a Lion", "the Guild Arms", "Stars"],
                 "Cover with": ["Vines", "Waves", "Birds and Flowers"]}),
    "ceramic": (["Vase with", "Bowl with", "Dish with", "Jar with", "Teapot with"],
                {"Vase with": ["Chrysanthemums", "Dragons", "Landscape", "Blue Flowers"],
                 "Bowl with": ["Fish", "Plum Blossom", "Crackled Glaze", "Waves"],
                 "Dish with": ["a Ship", "Tulips", "a Peacock", "Fruit"],
                 "Jar with": ["Lid", "Clouds", "Ash Glaze"],
                 "Teapot with": ["Bamboo", "Figures", "Cranes"]}),
}

BASE_VALUE = {"painting": 90000, "sculpture": 70000, "print": 6000, "photograph": 5000,
              "textile": 22000, "ceramic": 14000}
SIZE = {  # (height range, width range) in cm
    "painting": ((20, 180), (20, 190)),
    "sculpture": ((15, 180), (10, 90)),
    "print": ((12, 70), (10, 80)),
    "photograph": ((10, 60), (10, 60)),
    "textile": ((40, 280), (40, 360)),
    "ceramic": ((5, 70), (5, 55)),
}

GALLERIES = {
    "European Paintings": ["Gallery 1", "Gallery 2", "Gallery 3", "Gallery 4"],
    "Sculpture": ["Sculpture Court", "Gallery 5"],
    "Prints and Drawings": ["Print Room"],
    "Photography": ["Gallery 8"],
    "Textiles": ["Gallery 9"],
    "Decorative Arts": ["Gallery 6", "Gallery 7"],
    "Asian Art": ["Asian Pavilion"],
    "American Art": ["Gallery 10", "Gallery 11"],
}
CONDITIONS = [("excellent", 3), ("good", 5), ("fair", 3), ("poor", 1)]

FILLER = {
    "painting": ["The colours remain bright and the varnish is even.",
                 "Fine craquelure runs across the sky.",
                 "The composition was much copied by pupils.",
                 "An earlier owner added a label on the stretcher."],
    "sculpture": ["The surface shows a warm brown patina.",
                  "Tool marks are still visible on the base.",
                  "It stands on a later stone plinth."],
    "print": ["The impression is strong with wide margins.",
              "Light foxing appears along the edges.",
              "It comes from a small early edition."],
    "photograph": ["The print has strong contrast and deep blacks.",
                   "A small tear at the corner was stabilised.",
                   "The negative is lost, so this print is rare."],
    "textile": ["Some colours have faded from exposure to light.",
                "The lining was replaced at some point.",
                "The border shows fine needlework."],
    "ceramic": ["The glaze is thick and glossy.",
                "A small chip on the foot rim is visible.",
                "It was made for export to Europe."],
}
GILDED = {
    "painting": "It hangs in its original gilded frame.",
    "sculpture": "Parts of the surface are gilded.",
    "print": "It is mounted in a narrow gilded frame.",
    "photograph": "It is shown in a gilded frame chosen by the artist.",
    "textile": "It is woven with gilded thread.",
    "ceramic": "The rim is gilded.",
}
SIGNED = {
    "painting": "Signed and dated lower right.",
    "sculpture": "Signed on the base.",
    "print": "Signed in pencil in the margin.",
    "photograph": "Signed on the back of the mount.",
    "textile": "Signed with a woven mark in the corner.",
    "ceramic": "Signed with a seal mark under the foot.",
}
RESTORED = ["It was restored in {y} after damage in storage.",
            "It was carefully restored in {y}.",
            "Conservators restored it in {y}."]
UNFINISHED = "The work was left unfinished by the artist."
CRACKED = {
    "painting": "The panel is cracked along the grain.",
    "sculpture": "The base is cracked.",
    "print": None,
    "photograph": None,
    "textile": None,
    "ceramic": "The body is cracked and held by old rivets.",
}
BEQUEST = "It came to the museum as a bequest."
WATER = "There are traces of water damage at the bottom."


def pick(weighted):
    items = list(weighted.items()) if isinstance(weighted, dict) else weighted
    return rng.choices([a for a, _ in items], weights=[w for _, w in items])[0]


def department(nat, otype):
    if nat in ("JP", "CN"):
        return "Asian Art"
    if nat == "US":
        return "American Art"
    return {"painting": "European Paintings", "sculpture": "Sculpture",
            "print": "Prints and Drawings", "photograph": "Photography",
            "textile": "Textiles", "ceramic": "Decorative Arts"}[otype]


def main():
    records = []
    used_numbers = set()
    used_titles = {}
    for _ in range(N):
        ai = rng.choices(range(len(ARTISTS)), weights=ARTIST_WEIGHTS)[0]
        first, last, nat, y0, y1, fame, types = ARTISTS[ai]
        otype = pick(types)
        year = rng.randint(y0, y1)
        media = [(m, w) for m, w in MEDIA[otype]
                 if year >= MODERN_ONLY.get(m, 0) and year < OLD_ONLY.get(m, 9999)]
        medium = pick(media)

        head, tails = TITLES[otype]
        for _attempt in range(20):
            h = rng.choice(head)
            title = f"{h} {rng.choice(tails[h])}"
            if title not in used_titles:
                break
        used_titles[title] = used_titles.get(title, 0) + 1

        # acquisition
        earliest = max(year + 1, 1885)
        if rng.random() < 0.55:
            acq_year = rng.randint(max(earliest, 1991), 2024) if earliest <= 2024 else 2024
        else:
            acq_year = rng.randint(earliest, max(earliest, 1990))
        acq_year = min(acq_year, 2024)
        seq = rng.randint(1, 999)
        num = f"OBJ-{acq_year}-{seq:04d}"
        while num in used_numbers:
            seq = rng.randint(1, 999)
            num = f"OBJ-{acq_year}-{seq:04d}"
        used_numbers.add(num)

        (h0, h1), (w0, w1) = SIZE[otype]
        height = round(rng.uniform(h0, h1), 1)
        width = round(rng.uniform(w0, w1), 1)
        if otype == "sculpture" and rng.random() < 0.12:
            height = round(rng.uniform(201, 340), 1)
        if otype == "painting" and rng.random() < 0.12:
            width = round(rng.uniform(151, 420), 1)

        condition = pick(CONDITIONS)
        loaned = rng.random() < 0.09
        on_display = (not loaned) and condition != "poor" and rng.random() < 0.45
        dept = department(nat, otype)

        age = max(0, 2025 - year)
        value = BASE_VALUE[otype] * fame * (1 + age / 250) * rng.lognormvariate(0, 0.55)
        if condition == "poor":
            value *= 0.6
        value = int(round(value, -2))

        # description
        art_noun = {"painting": "painting", "sculpture": "sculpture", "print": "print",
                    "photograph": "photograph", "textile": "textile", "ceramic": "piece"}[otype]
        article = "An" if medium[0] in "aeiou" else "A"
        parts = [f"{article} {medium} {art_noun} by {first} {last}, made in {year}."]
        if rng.random() < 0.35:
            parts.append(SIGNED[otype])
        if rng.random() < {"painting": 0.2, "sculpture": 0.2, "ceramic": 0.3, "textile": 0.25}.get(otype, 0.1):
            parts.append(GILDED[otype])
        p_rest = {"excellent": 0.35, "good": 0.25, "fair": 0.12, "poor": 0.03}[condition]
        if rng.random() < p_rest:
            parts.append(rng.choice(RESTORED).format(y=rng.randint(max(acq_year, 1950), 2024)))
        if rng.random() < 0.05:
            parts.append(UNFINISHED)
        if CRACKED[otype] and condition in ("fair", "poor") and rng.random() < 0.4:
            parts.append(CRACKED[otype])
        if condition in ("fair", "poor") and rng.random() < 0.12:
            parts.append(WATER)
        parts.append(rng.choice(FILLER[otype]))
        if rng.random() < 0.15:
            parts.append(BEQUEST)
        description = " ".join(parts)

        rec = {
            "objectNumber": num,
            "title": title,
            "object_type": otype,
            "artistFirstName": first,
            "artistLastName": last,
            "artist_nationality": nat,
            "yearMade": year,
            "yearAcquired": acq_year,
        }
        if acq_year > 1990:
            d = date(acq_year, 1, 1) + timedelta(days=rng.randint(0, 364))
            rec["acquired_on"] = d.isoformat()
        rec.update({
            "medium": medium,
            "heightCm": height,
            "widthCm": width,
            "onDisplay": on_display,
        })
        if on_display:
            rec["gallery"] = rng.choice(GALLERIES[dept])
        rec.update({
            "department": dept,
            "insurance_value": value,
            "is_loaned_out": loaned,
            "condition": condition,
            "description": description,
        })
        records.append(rec)

    records.sort(key=lambda r: r["objectNumber"])
    with open(OUT, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
