#!/usr/bin/env python3
"""Generate sightings.jsonl: wildlife sightings reported by volunteer observers in Canada and
the United States (observer names split into first_name / last_name).

Deterministic (seeded, Python stdlib only). Run from any directory:
    python3 bench/structured/es/gen_sightings.py
verified_by is left out of a record that has not been verified.
"""
import json
import os
import random
from datetime import datetime, timedelta

SEED = 7301
N = 300
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sightings.jsonl")

rng = random.Random(SEED)

# species -> (group, conservation status, habitats, regions, (min count, max count), weight)
SPECIES = {
    "Moose": ("mammal", "least_concern", ["forest", "wetland"], ["BC", "AB", "ON", "QC", "NL", "AK", "ME", "MT"], (1, 3), 9),
    "Black Bear": ("mammal", "least_concern", ["forest", "alpine"], ["BC", "AB", "ON", "QC", "AK", "MT", "WA", "ME"], (1, 3), 10),
    "Grizzly Bear": ("mammal", "vulnerable", ["alpine", "forest", "grassland"], ["BC", "AB", "AK", "MT", "WY"], (1, 3), 6),
    "Grey Wolf": ("mammal", "least_concern", ["forest", "tundra"], ["BC", "AB", "ON", "NU", "AK", "MT", "WY"], (1, 9), 6),
    "Caribou": ("mammal", "endangered", ["tundra", "forest"], ["NU", "NL", "QC", "AK"], (2, 60), 5),
    "Canada Lynx": ("mammal", "near_threatened", ["forest"], ["BC", "AB", "QC", "AK", "MT"], (1, 2), 4),
    "Red Fox": ("mammal", "least_concern", ["grassland", "forest"], ["ON", "QC", "AB", "NL", "ME", "WA"], (1, 4), 9),
    "Beaver": ("mammal", "least_concern", ["wetland"], ["ON", "QC", "BC", "ME", "WA"], (1, 5), 8),
    "Polar Bear": ("mammal", "vulnerable", ["tundra", "coastline"], ["NU", "AK"], (1, 3), 3),
    "Bald Eagle": ("bird", "least_concern", ["coastline", "wetland", "forest"], ["BC", "AK", "WA", "ME", "ON"], (1, 4), 10),
    "Snowy Owl": ("bird", "vulnerable", ["tundra", "grassland"], ["NU", "QC", "ON", "AB", "AK"], (1, 2), 6),
    "Great Blue Heron": ("bird", "least_concern", ["wetland", "coastline"], ["ON", "QC", "BC", "ME", "WA"], (1, 6), 8),
    "Common Loon": ("bird", "least_concern", ["wetland"], ["ON", "QC", "NL", "ME", "MT"], (1, 4), 7),
    "Whooping Crane": ("bird", "endangered", ["wetland", "grassland"], ["AB", "MT", "WY"], (1, 6), 3),
    "Humpback Whale": ("marine mammal", "least_concern", ["open_ocean", "coastline"], ["BC", "NL", "AK", "WA", "ME"], (1, 7), 6),
    "Orca": ("marine mammal", "endangered", ["open_ocean", "coastline"], ["BC", "WA", "AK"], (2, 12), 5),
    "Harbour Seal": ("marine mammal", "least_concern", ["coastline"], ["BC", "NL", "ME", "WA", "AK"], (1, 25), 7),
    "Beluga": ("marine mammal", "endangered", ["coastline", "open_ocean"], ["QC", "NU", "AK"], (2, 30), 4),
}
COUNTRY = {"BC": "CA", "AB": "CA", "ON": "CA", "QC": "CA", "NL": "CA", "NU": "CA",
           "AK": "US", "ME": "US", "MT": "US", "WA": "US", "WY": "US"}
ELEVATION = {"forest": (150, 1400), "wetland": (20, 900), "tundra": (10, 600), "alpine": (1200, 2600),
             "grassland": (300, 1300), "coastline": (0, 40), "open_ocean": (0, 0)}
MEAN_TEMP = {"BC": 8, "AB": 3, "ON": 6, "QC": 4, "NL": 2, "NU": -12, "AK": -3, "ME": 7, "MT": 5,
             "WA": 10, "WY": 4}
SEASON = [-12, -10, -5, 2, 9, 14, 17, 16, 11, 4, -3, -9]  # by month

OBSERVERS = [  # (first, last, home regions, weight)
    ("Maya", "Okafor", ["ON", "QC"], 1.7),
    ("Lucas", "Bergeron", ["QC", "NL"], 1.2),
    ("Hannah", "Whitfield", ["BC", "WA"], 1.3),
    ("Noah", "Kaplan", ["ON", "ME"], 0.8),
    ("Aiyana", "Redcloud", ["MT", "WY", "AB"], 1.0),
    ("Jin", "Park", ["BC", "AK"], 1.0),
    ("Elise", "Fournier", ["QC", "ON"], 0.9),
    ("Samuel", "Nakamura", ["AK", "WA"], 1.0),
    ("Tuktu", "Anguttitauruq", ["NU"], 0.8),
    ("Grace", "Holloway", ["AB", "BC", "MT"], 0.9),
    ("Owen", "McAllister", ["NL", "ME"], 0.8),
    ("Maya", "Lindgren", ["WA", "BC", "AK"], 0.7),
]
REVIEWERS = ["Dr. Helen Cardinal", "Dr. Marc Levesque", "Dr. Rosa Delgado", "Dr. Peter Nguyen"]
REVIEWER_W = [1.5, 1.0, 0.9, 0.7]

BEHAVIOR = {
    "mammal": ["feeding", "resting", "travelling", "hunting"],
    "bird": ["feeding", "nesting", "calling", "resting", "travelling"],
    "marine mammal": ["feeding", "travelling", "breaching", "resting"],
}
NOTE_A = {
    "feeding": ["was feeding {where}", "fed quietly {where}"],
    "resting": ["was resting {where}", "lay still {where} for a long time"],
    "travelling": ["moved steadily {where}", "was travelling {where}"],
    "hunting": ["was stalking prey {where}", "was hunting {where}"],
    "nesting": ["was sitting on a nest {where}", "carried sticks to a nest {where}"],
    "calling": ["called repeatedly {where}", "was calling loudly {where}"],
    "breaching": ["breached several times {where}", "slapped its tail {where}"],
}
WHERE = {
    "forest": ["at the edge of a spruce stand", "along an old logging road", "near a forest trail"],
    "wetland": ["in a shallow marsh", "beside a beaver pond", "among the reeds of the lake shore"],
    "tundra": ["on open tundra", "near a frozen creek", "on a gravel ridge"],
    "alpine": ["on a rocky alpine slope", "near the tree line", "in an avalanche chute"],
    "grassland": ["in a hay field", "on open prairie", "near a fence line"],
    "coastline": ["on the rocks below the lighthouse", "along a sandy beach", "near the harbour mouth"],
    "open_ocean": ["about two kilometres offshore", "near a fishing boat", "in deep water off the point"],
}
NOTE_B = [
    "Seen through binoculars in good light.",
    "Photographed with a telephoto lens.",
    "Light rain made it hard to see details.",
    "Fresh tracks were found nearby afterwards.",
    "Two hikers saw it too.",
    "It left when a dog barked in the distance.",
    "Heavy fog rolled in soon after.",
    "A second animal watched from a distance.",
    "Observed from the car at the roadside.",
    "",
]
NOTE_B_SEA = [
    "Seen through binoculars in good light.",
    "Photographed with a telephoto lens from the ferry.",
    "Light rain made it hard to see details.",
    "A calf stayed close by the whole time.",
    "Heavy fog rolled in soon after.",
    "Watched from a kayak at a safe distance.",
    "",
]

PLURAL = {"Moose": "moose", "Caribou": "caribou", "Grey Wolf": "grey wolves", "Red Fox": "red foxes",
          "Canada Lynx": "Canada lynx"}

START = datetime(2023, 1, 1)
END = datetime(2025, 12, 31, 23, 59, 59)


def pick(options, weights):
    return rng.choices(options, weights=weights, k=1)[0]


def main():
    span = int((END - START).total_seconds())
    times = sorted(START + timedelta(seconds=rng.randrange(span)) for _ in range(N))
    names = list(SPECIES)
    records = []
    for i, t in enumerate(times):
        t = t.replace(hour=rng.choice([5, 6, 7, 8, 9, 10, 11, 14, 16, 17, 18, 19, 20]))
        species = pick(names, [SPECIES[s][5] for s in names])
        group, status, habitats, regions, (lo, hi), _ = SPECIES[species]
        habitat = rng.choice(habitats)
        # observers are picked among those who visit a region where the species lives
        obs_ok = [o for o in OBSERVERS if set(o[2]) & set(regions)]
        first, last, homes, _ = pick(obs_ok, [o[3] for o in obs_ok])
        region = rng.choice(sorted(set(homes) & set(regions)))
        count = rng.randint(lo, hi) if rng.random() < 0.5 else lo
        behavior = rng.choice(BEHAVIOR[group])
        elo, ehi = ELEVATION[habitat]
        temp = MEAN_TEMP[region] + SEASON[t.month - 1] + rng.uniform(-5, 5)
        distance = round(rng.uniform(30, 2500) if group == "marine mammal" else rng.uniform(5, 800), 1)
        verified = rng.random() < 0.62
        photo = rng.random() < (0.75 if verified else 0.35)
        where = rng.choice(WHERE[habitat])
        a = rng.choice(NOTE_A[behavior]).format(where=where)
        common = species.lower().replace("canada", "Canada")
        if count == 1:
            subject = f"A {common}"
        else:
            subject = f"A group of {count} {PLURAL.get(species, common + 's')}"
            a = a.replace("was ", "were ").replace("its tail", "their tails")
        notes = f"{subject} {a}. {rng.choice(NOTE_B_SEA if group == 'marine mammal' else NOTE_B)}".strip()
        rec = {
            "id": f"OBS-{230001 + i}",
            "species": species,
            "species_group": group,
            "conservation_status": status,
            "first_name": first,
            "last_name": last,
            "observed_at": t.strftime("%Y-%m-%dT%H:%M:%S"),
            "country": COUNTRY[region],
            "region": region,
            "habitat": habitat,
            "behavior": behavior,
            "individual_count": count,
            "distance_m": distance,
            "duration_min": rng.choice([1, 2, 3, 5, 5, 8, 10, 12, 15, 20, 25, 30, 45, 60, 90]),
            "elevation_m": rng.randint(elo, ehi),
            "temperature_c": round(temp, 1),
            "photo_attached": photo,
            "verified": verified,
        }
        if verified:
            rec["verified_by"] = pick(REVIEWERS, REVIEWER_W)
        rec["notes"] = notes
        records.append(rec)

    with open(OUT, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
