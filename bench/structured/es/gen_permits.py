#!/usr/bin/env python3
"""Generate permits.jsonl: building-permit applications handled by the planning departments of
twelve municipalities in NL, BE, DE, AT and DK, submitted 2024-2025.

Seeded and standard-library only, so the output is identical on every run. Fields that do not
apply are left out, never written as null: `decisionDate` and `processingDays` on an application
that is still under review or was withdrawn, `architectFirm` on a self-drawn application.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251204)

MUNICIPALITIES = {
    "Rotterdam": ("NL", 42), "Eindhoven": ("NL", 28), "Haarlem": ("NL", 24),
    "Leuven": ("BE", 30), "Bruges": ("BE", 26),
    "Freiburg": ("DE", 34), "Leipzig": ("DE", 36),
    "Graz": ("AT", 30), "Linz": ("AT", 22),
    "Aarhus": ("DK", 32), "Odense": ("DK", 24), "Aalborg": ("DK", 18),
}

FIRMS = {
    "NL": ["Studio Maasoever", "Van Leeuwen Architecten", "Bureau Kade"],
    "BE": ["Atelier Mertens", "Bureau Kade"],
    "DE": ["Baumann + Partner", "Werkraum Ost"],
    "AT": ["Holzer Architektur", "Werkraum Ost"],
    "DK": ["Kjær Tegnestue", "Nordlys Arkitekter"],
}

FIRST = ["Marieke", "Jeroen", "Sanne", "Koen", "Elise", "Bart", "Annelies", "Tom", "Katrin", "Matthias",
         "Ulrike", "Florian", "Johanna", "Andreas", "Birgit", "Mette", "Rasmus", "Signe", "Henrik",
         "Karin", "Dirk", "Nele", "Wim", "Greta", "Jakob", "Liesbeth", "Ruben", "Sabine", "Oskar", "Frida"]
LAST = ["van Dijk", "de Boer", "Smit", "Meijer", "Vermeulen", "Wouters", "Goossens", "Dubois",
        "Hoffmann", "Schulz", "Richter", "Koch", "Pichler", "Moser", "Leitner", "Christensen",
        "Sørensen", "Andersen", "Madsen", "Kramer", "Lambert", "Brandt", "Vos", "Winkler", "Thomsen"]

# project type: (weight, floor area range m2, cost per m2 range, storeys choices)
TYPES = {
    "extension": (70, (12, 60), (1400, 2600), [1, 1, 2]),
    "new build": (45, (90, 420), (1900, 3300), [2, 2, 3, 4]),
    "renovation": (60, (40, 260), (500, 1400), [1, 2, 3]),
    "demolition": (18, (60, 500), (90, 260), [1, 2, 3]),
    "change of use": (30, (50, 600), (300, 1100), [1, 2, 3, 4]),
    "commercial fit-out": (35, (80, 1500), (600, 1800), [1, 2, 4, 6]),
    "outbuilding": (32, (8, 40), (700, 1600), [1]),
}

OPENING = {
    "extension": ["Single-storey rear extension with a flat roof", "Side extension to enlarge the kitchen",
                  "Two-storey rear extension with a dormer on top", "Rear extension with a roof terrace above"],
    "new build": ["New detached family house on a vacant plot", "New apartment block with underground parking",
                  "Two semi-detached houses replacing a garage", "New terraced house in an existing street"],
    "renovation": ["Full renovation of the facade and roof", "Interior renovation and new windows in the facade",
                   "Renovation of a farmhouse including the roof", "Roof renovation with a new dormer"],
    "demolition": ["Demolition of a derelict warehouse", "Demolition of a garage and garden wall",
                   "Demolition of an office building before redevelopment", "Partial demolition of a shed"],
    "change of use": ["Change of use from office to apartments", "Conversion of a shop into a dwelling",
                      "Change of use from barn to holiday home", "Conversion of a church hall into a cafe"],
    "commercial fit-out": ["Fit-out of a ground-floor shop with a new shopfront", "Restaurant fit-out with an extraction duct",
                           "Office fit-out with a new staircase", "Fit-out of a supermarket with a loading bay"],
    "outbuilding": ["Detached garden studio", "Timber carport next to the house",
                    "Garden shed with a green roof", "Detached garage at the back of the plot"],
}
EXTRAS = [
    ("Includes solar panels on the roof.", 0.20),
    ("Asbestos removal before works start.", 0.10),
    ("Two trees will be felled.", 0.10),
    ("A basement will be excavated.", 0.07),
    ("Includes a wheelchair ramp at the entrance.", 0.06),
    ("Extra bicycle storage is provided.", 0.08),
    ("Neighbours raised concerns about loss of daylight.", 0.12),
    ("Original timber windows are kept.", 0.25),
    ("Works close to a protected monument.", 0.0),  # added for heritage sites only
]

TODAY = date(2025, 12, 15)
START = date(2024, 1, 2)
END = date(2025, 11, 28)
N = 356

applicants = []
seen = set()
while len(applicants) < 140:
    f, l = rng.choice(FIRST), rng.choice(LAST)
    if (f, l) not in seen:
        seen.add((f, l))
        applicants.append((f, l))

records = []
counters = {2024: 0, 2025: 0}
days = [START + timedelta(days=d) for d in range((END - START).days + 1)]
subs = sorted(rng.choice(days) for _ in range(N))
for submitted in subs:
    town = rng.choices(list(MUNICIPALITIES), weights=[w for _, w in MUNICIPALITIES.values()])[0]
    country = MUNICIPALITIES[town][0]
    ptype = rng.choices(list(TYPES), weights=[t[0] for t in TYPES.values()])[0]
    _, (amin, amax), (cmin, cmax), storeys = TYPES[ptype]
    area = round(rng.uniform(amin, amax), 1)
    cost = int(round(area * rng.uniform(cmin, cmax), -2))
    heritage = rng.random() < (0.22 if town in ("Bruges", "Leuven", "Graz", "Haarlem", "Freiburg") else 0.08)
    fast = ptype in ("outbuilding", "extension") and not heritage and rng.random() < 0.35
    base = {"outbuilding": 28, "extension": 45, "renovation": 55, "demolition": 40,
            "change of use": 75, "commercial fit-out": 60, "new build": 95}[ptype]
    proc = max(8, int(rng.gauss(base * (0.55 if fast else 1.0) * (1.5 if heritage else 1.0), base * 0.3)))
    if country == "DE":
        proc += 12
    if country == "DK":
        proc -= 6
    proc = max(8, proc)
    decided = submitted + timedelta(days=proc)
    objections = 0
    if ptype in ("new build", "change of use", "commercial fit-out", "demolition"):
        objections = rng.choice([0, 0, 0, 1, 2, 3, 5, 8, 12])
    else:
        objections = rng.choice([0, 0, 0, 0, 0, 1, 1, 2, 4])
    withdrawn = rng.random() < 0.05
    if withdrawn:
        status = "withdrawn"
    elif decided > TODAY:
        status = "under_review"
    else:
        p_reject = 0.10 + (0.15 if heritage else 0) + 0.02 * objections
        status = "rejected" if rng.random() < p_reject else "approved"
    year = submitted.year
    counters[year] += rng.randint(1, 4)
    code = f"BP-{year}-{counters[year]:05d}"
    first, last = rng.choice(applicants)

    text = rng.choice(OPENING[ptype]) + "."
    for sentence, p in EXTRAS:
        if sentence.startswith("Works close") and heritage and rng.random() < 0.5:
            text += " " + sentence
        elif sentence.startswith("Original") and ptype not in ("renovation", "change of use"):
            continue
        elif rng.random() < p:
            text += " " + sentence

    fee = round(120 + cost * (0.011 if country in ("DE", "AT") else 0.008), 2)
    fee = min(fee, 9500.0)
    rec = {
        "application_no": code,
        "municipality": town,
        "country_code": country,
        "project_type": ptype,
        "status": status,
        "submitted_on": submitted.isoformat(),
    }
    if status in ("approved", "rejected"):
        rec["decisionDate"] = decided.isoformat()
        rec["processingDays"] = proc
    rec.update({
        "applicant_first_name": first,
        "applicantLastName": last,
        "floor_area_m2": area,
        "estimated_cost_eur": cost,
        "permit_fee_eur": fee,
        "numberOfStoreys": rng.choice(storeys),
        "objection_count": objections,
        "is_heritage_site": heritage,
        "isFastTrack": fast,
        "wasAppealed": status == "rejected" and rng.random() < 0.45 or status == "approved" and objections >= 3 and rng.random() < 0.3,
        "description": text,
    })
    if rng.random() < (0.25 if ptype == "outbuilding" else 0.82):
        rec["architectFirm"] = rng.choice(FIRMS[country])
    records.append(rec)

with open(os.path.join(HERE, "permits.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
