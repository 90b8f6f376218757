#!/usr/bin/env python3
"""Generate inspections.jsonl: restaurant health inspections in six Canadian cities.

Deterministic (seeded, Python stdlib only). Run from any directory:
    python3 bench/structured/es/gen_inspections.py
One record per inspection visit. A restaurant can be inspected several times.
"""
import json
import os
import random
from datetime import date, timedelta

SEED = 4417
N = 360
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inspections.jsonl")

rng = random.Random(SEED)

CITIES = {  # city -> (province, weight, neighbourhoods)
    "Toronto": ("ON", 30, ["Kensington Market", "Leslieville", "The Annex", "Liberty Village"]),
    "Ottawa": ("ON", 12, ["ByWard Market", "Westboro", "The Glebe"]),
    "Montreal": ("QC", 22, ["Plateau", "Mile End", "Old Port", "Verdun"]),
    "Vancouver": ("BC", 18, ["Gastown", "Kitsilano", "Commercial Drive"]),
    "Calgary": ("AB", 10, ["Beltline", "Inglewood", "Kensington"]),
    "Halifax": ("NS", 8, ["North End", "Downtown Halifax"]),
}
CUISINES = ["Italian", "Chinese", "Mexican", "Indian", "Japanese", "Canadian", "Thai",
            "Mediterranean", "Bakery", "Cafe", "Vietnamese", "Korean"]
CUISINE_W = [12, 11, 8, 9, 9, 12, 6, 7, 8, 10, 5, 3]
NAME_A = ["Golden", "Maple", "Blue", "Little", "Red", "Happy", "Old", "Northern", "Silver",
          "Green", "Lucky", "Urban", "Harbour", "Salt", "Copper", "Wild"]
NAME_B = {
    "Italian": ["Trattoria", "Pasta House", "Pizzeria"], "Chinese": ["Dumpling House", "Wok", "Noodle Bar"],
    "Mexican": ["Taqueria", "Cantina"], "Indian": ["Tandoor", "Curry House"],
    "Japanese": ["Sushi", "Ramen Bar", "Izakaya"], "Canadian": ["Diner", "Grill", "Kitchen"],
    "Thai": ["Thai Kitchen", "Basil"], "Mediterranean": ["Taverna", "Mezze"],
    "Bakery": ["Bakery", "Bake Shop"], "Cafe": ["Cafe", "Coffee Bar", "Espresso"],
    "Vietnamese": ["Pho", "Banh Mi"], "Korean": ["BBQ", "Bibimbap House"],
}
INSPECTORS = {  # name -> (cities, weight)
    "Daniel Tremblay": (["Montreal"], 1.0),
    "Isabelle Gagnon": (["Montreal", "Ottawa"], 1.0),
    "Amrit Sandhu": (["Toronto"], 1.4),
    "Grace Okonkwo": (["Toronto", "Ottawa"], 1.0),
    "Ethan MacLeod": (["Halifax"], 1.0),
    "Wen Li": (["Vancouver"], 1.0),
    "Nadia Hassan": (["Vancouver", "Calgary"], 0.9),
    "Robert Chen": (["Calgary"], 1.0),
    "Olivia Martin": (["Toronto", "Ottawa", "Halifax"], 0.6),
}
TYPES = ["routine", "follow-up", "complaint", "pre-opening"]
TYPE_W = [62, 18, 14, 6]

ISSUES = [  # (sentence, severity 0 minor / 1 critical)
    ("Mouse droppings were found behind the dry storage shelves.", 1),
    ("Signs of rodents were seen near the back door and a pest control visit was ordered.", 1),
    ("The walk-in cooler held food at 9 degrees, above the 4 degree limit.", 1),
    ("Raw chicken was stored above ready-to-eat salads in the fridge.", 1),
    ("The handwashing sink was blocked with dirty pans and had no soap.", 1),
    ("Cockroaches were seen under the dishwasher.", 1),
    ("Cooked rice was cooling at room temperature for several hours.", 1),
    ("The food handler certificate of the manager had expired.", 0),
    ("Mould was growing on the seals of the reach-in fridge.", 0),
    ("Several containers in the freezer were not labelled or dated.", 0),
    ("Grease had built up on the hood filters above the fryer.", 0),
    ("The sanitizer in the dish area was too weak when tested.", 0),
    ("Staff were not wearing hair restraints while preparing food.", 0),
    ("A thermometer was missing from the display fridge.", 0),
    ("Floor tiles in the kitchen were cracked and hard to clean.", 0),
    ("The garbage area outside was overflowing.", 0),
]
CLEAN = [
    "The kitchen was clean and well organised, with no violations found.",
    "Food temperatures were all within limits and staff knew the cleaning schedule.",
    "No issues were observed; the owner was polite and cooperative.",
    "Storage, labelling and handwashing were all in good order.",
]
AFTER = [
    "The operator corrected it during the visit.",
    "A follow-up inspection was scheduled within two weeks.",
    "The manager was given written instructions.",
    "Staff were reminded of the rules on the spot.",
    "",
]

START = date(2023, 1, 2)
END = date(2025, 12, 19)


def pick(options, weights):
    return rng.choices(options, weights=weights, k=1)[0]


def make_restaurants(n):
    restaurants = []
    used = set()
    while len(restaurants) < n:
        city = pick(list(CITIES), [v[1] for v in CITIES.values()])
        cuisine = pick(CUISINES, CUISINE_W)
        name = f"{rng.choice(NAME_A)} {rng.choice(NAME_B[cuisine])}"
        if name in used:
            continue
        used.add(name)
        restaurants.append({
            "restaurant_name": name,
            "cuisine": cuisine,
            "city": city,
            "province": CITIES[city][0],
            "neighbourhood": rng.choice(CITIES[city][2]),
            "seating_capacity": rng.choice([12, 20, 24, 30, 40, 45, 60, 80, 120, 150]),
            "risk": rng.random(),  # hidden: how careless the kitchen is
        })
    return restaurants


def main():
    restaurants = make_restaurants(140)
    span = (END - START).days
    visits = []
    for _ in range(N):
        r = rng.choice(restaurants)
        d = START + timedelta(days=rng.randrange(span))
        while d.weekday() >= 5:  # inspectors work on weekdays
            d += timedelta(days=1)
        visits.append((d, r))
    visits.sort(key=lambda v: (v[0], v[1]["restaurant_name"]))

    records = []
    for i, (d, r) in enumerate(visits):
        itype = pick(TYPES, TYPE_W)
        candidates = [n for n, (cities, _) in INSPECTORS.items() if r["city"] in cities]
        inspector = pick(candidates, [INSPECTORS[n][1] for n in candidates])
        risk = r["risk"] + (0.15 if itype == "complaint" else 0)
        n_issues = 0 if rng.random() > risk + 0.1 else rng.choice([1, 1, 2, 2, 3, 4])
        issues = rng.sample(ISSUES, n_issues)
        critical = sum(sev for _, sev in issues)
        total = n_issues + (rng.choice([0, 0, 1, 2]) if n_issues else 0)
        score = 100 - 14 * critical - 4 * (total - critical) - rng.randint(0, 6)
        score = max(38, min(100, score))
        grade = "A" if score >= 85 else "B" if score >= 70 else "C"
        if score >= 70 and critical == 0:
            result = "pass"
        elif score >= 60:
            result = "conditional_pass"
        else:
            result = "fail"
        closed = result == "fail" and critical >= 2 and rng.random() < 0.6
        fine = 0.0
        if critical:
            fine = float(critical * rng.choice([250, 300, 400, 500]) + (750 if closed else 0))
        if issues:
            text = " ".join(s for s, _ in issues[:2])
            after = rng.choice(AFTER)
            notes = (text + " " + after).strip()
        else:
            notes = rng.choice(CLEAN)
        rec = {
            "id": f"INSP-{d.year}-{i + 1:04d}",
            "restaurant_name": r["restaurant_name"],
            "cuisine": r["cuisine"],
            "city": r["city"],
            "province": r["province"],
            "neighbourhood": r["neighbourhood"],
            "inspection_date": d.isoformat(),
            "inspection_type": itype,
            "inspector_name": inspector,
            "score": score,
            "grade": grade,
            "result": result,
            "critical_violations": critical,
            "total_violations": total,
            "fine_cad": fine,
            "duration_min": 25 + 10 * total + rng.randint(0, 40),
            "follow_up_required": result != "pass",
            "closed_by_order": closed,
            "seating_capacity": r["seating_capacity"],
            "notes": notes,
        }
        records.append(rec)

    with open(OUT, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
