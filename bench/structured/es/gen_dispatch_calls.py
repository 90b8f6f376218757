#!/usr/bin/env python3
"""Generate dispatch_calls.jsonl: emergency calls handled by the ambulance and fire dispatch
centres of a network covering DE, NL, BE, SE and PL, received 2024-2025.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `closed_date` on a call that is still open (mostly fire
and hazardous-materials incidents under investigation at the end of 2025).
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251219)

# city: (country, weight, typical distance scale km)
CITIES = {
    "Hamburg": ("DE", 34, 6), "Dresden": ("DE", 26, 8), "Kassel": ("DE", 16, 10),
    "Utrecht": ("NL", 30, 5), "Groningen": ("NL", 20, 9),
    "Ghent": ("BE", 26, 7), "Namur": ("BE", 16, 11),
    "Gothenburg": ("SE", 28, 9), "Umeå": ("SE", 14, 16),
    "Kraków": ("PL", 30, 7), "Gdańsk": ("PL", 22, 8),
}

# one dispatch centre per country, a few dispatchers each (full name in one field)
DISPATCHERS = {
    "DE": ["Jonas Keller", "Miriam Hartmann", "Tobias Brandt"],
    "NL": ["Femke de Groot", "Daan Visser"],
    "BE": ["Lotte Claes", "Pieter Janssens"],
    "SE": ["Anna Berg", "Erik Lindqvist"],
    "PL": ["Agnieszka Nowak", "Tomasz Zieliński", "Marta Kowalczyk"],
}

FIRST = {
    "DE": ["Lukas", "Hannah", "Felix", "Sophie", "Max", "Laura", "Stefan", "Petra", "Uwe", "Claudia"],
    "NL": ["Bram", "Eva", "Sem", "Lieke", "Joost", "Anouk", "Ruud", "Ingrid"],
    "BE": ["Wout", "Lien", "Arne", "Julie", "Kobe", "Marie", "Luc", "Els"],
    "SE": ["Oskar", "Elsa", "Nils", "Maja", "Johan", "Karin", "Lars", "Ingrid"],
    "PL": ["Piotr", "Zofia", "Kacper", "Julia", "Marek", "Ewa", "Paweł", "Anna"],
}
LAST = {
    "DE": ["Weber", "Fischer", "Becker", "Wagner", "Schröder", "Neumann", "Krüger", "Wolf"],
    "NL": ["Jansen", "Bakker", "Visser", "Mulder", "de Wit", "Bos", "van Leeuwen"],
    "BE": ["Peeters", "Maes", "Willems", "Jacobs", "Mertens", "Dubois", "Lambert"],
    "SE": ["Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Berg"],
    "PL": ["Nowak", "Wójcik", "Mazur", "Krawczyk", "Kaczmarek", "Zając", "Król", "Wróbel"],
}

# category: (weight, units with weights, priority weights critical/high/medium/low, false alarm p)
CATEGORIES = {
    "medical": (95, {"ambulance": 70, "rapid response car": 22, "air ambulance": 8}, [22, 38, 28, 12], 0.04),
    "fall": (40, {"ambulance": 80, "rapid response car": 20}, [6, 30, 44, 20], 0.03),
    "traffic accident": (50, {"ambulance": 50, "fire engine": 30, "rapid response car": 10, "air ambulance": 10}, [25, 40, 25, 10], 0.06),
    "structure fire": (45, {"fire engine": 62, "ladder truck": 38}, [30, 40, 22, 8], 0.22),
    "vegetation fire": (28, {"fire engine": 100}, [8, 30, 40, 22], 0.14),
    "hazardous materials": (18, {"hazmat unit": 80, "fire engine": 20}, [28, 42, 22, 8], 0.18),
    "water rescue": (14, {"rescue boat": 70, "air ambulance": 15, "ambulance": 15}, [45, 35, 15, 5], 0.10),
}
PRIORITIES = ["critical", "high", "medium", "low"]

CREW = {"ambulance": [2], "rapid response car": [1], "air ambulance": [3, 4], "fire engine": [4, 5, 6],
        "ladder truck": [3, 4], "hazmat unit": [4, 5, 6], "rescue boat": [3, 4]}
BASE_COST = {"ambulance": 420, "rapid response car": 260, "air ambulance": 3200, "fire engine": 950,
             "ladder truck": 1250, "hazmat unit": 1800, "rescue boat": 1100}
PER_KM = {"ambulance": 5.5, "rapid response car": 3.0, "air ambulance": 38.0, "fire engine": 9.0,
          "ladder truck": 11.0, "hazmat unit": 14.0, "rescue boat": 12.0}
SPEED = {"air ambulance": 0.35}  # minutes per km, default 1.3

OPENING = {
    "medical": ["Caller reports a man with chest pain at home.", "Elderly woman unconscious in her kitchen.",
                "Child with breathing problems after an allergic reaction.", "Man collapsed in a supermarket, bystander started CPR.",
                "Diabetic patient confused and sweating at work."],
    "fall": ["Elderly man fell on the stairs and cannot get up.", "Woman slipped on ice outside a shop.",
             "Worker fell from a ladder on a building site.", "Elderly woman fell in the bathroom, possible hip fracture."],
    "traffic accident": ["Collision between two cars on the motorway.", "Cyclist hit by a van at a junction.",
                         "Car left the road and hit a tree.", "Motorcycle rider thrown off after a collision with a bus."],
    "structure fire": ["Smoke coming from the roof of a terraced house.", "Kitchen fire in a flat on the third floor.",
                       "Fire in a warehouse with heavy smoke.", "Smoke alarm sounding in an apartment block."],
    "vegetation fire": ["Grass fire spreading along the railway line.", "Forest fire near a hiking trail.",
                        "Burning hedge in a back garden.", "Field fire next to the motorway with smoke over the road."],
    "hazardous materials": ["Gas leak reported in a residential street.", "Chemical spill from a lorry in an industrial area.",
                            "Strong smell of gas in a school building.", "Leaking drums of solvent at a warehouse."],
    "water rescue": ["Swimmer in difficulty in the lake.", "Child fell through the ice on a pond.",
                     "Small boat capsized near the harbour.", "Person seen in the river from a bridge."],
}
FALSE_OPENING = {
    "medical": "Caller reported a person unconscious but the person was only asleep.",
    "fall": "Neighbour reported a fall but nobody needed help on arrival.",
    "traffic accident": "Reported collision could not be found at the given location.",
    "structure fire": "Smoke alarm set off by burnt toast, no fire found.",
    "vegetation fire": "Reported smoke turned out to be a permitted garden bonfire.",
    "hazardous materials": "Suspected gas leak was a faulty detector, no gas found.",
    "water rescue": "Person in the water was a swimmer who did not need help.",
}
EXTRAS = [
    ("Caller was very distressed.", 0.12, None),
    ("Police also attended.", 0.14, None),
    ("Crew had to carry the patient down the stairs.", 0.08, {"medical", "fall"}),
    ("A dog at the address delayed entry.", 0.05, {"medical", "fall"}),
    ("Heavy traffic slowed the unit.", 0.12, None),
    ("Driver was trapped and had to be cut free.", 0.30, {"traffic accident"}),
    ("Residents were evacuated from the building.", 0.35, {"structure fire", "hazardous materials"}),
    ("Bleeding was controlled on scene.", 0.30, {"traffic accident", "fall"}),
    ("Second unit requested as backup.", 0.10, None),
    ("Wrong address given at first.", 0.06, None),
]

CUTOFF = date(2025, 12, 31)
START = date(2024, 1, 1)
END = date(2025, 12, 22)
N = 352

records = []
counters = {2024: 0, 2025: 0}
days = [START + timedelta(days=d) for d in range((END - START).days + 1)]
received_days = sorted(rng.choice(days) for _ in range(N))
for received in received_days:
    city = rng.choices(list(CITIES), weights=[c[1] for c in CITIES.values()])[0]
    country, _, dscale = CITIES[city]
    cat = rng.choices(list(CATEGORIES), weights=[c[0] for c in CATEGORIES.values()])[0]
    _, units, pweights, p_false = CATEGORIES[cat]
    if cat == "vegetation fire" and received.month in (6, 7, 8):
        p_false = 0.08
    unit = rng.choices(list(units), weights=list(units.values()))[0]
    priority = rng.choices(PRIORITIES, weights=pweights)[0]
    false_alarm = rng.random() < p_false
    if false_alarm and priority == "critical":
        priority = "high"

    dist = min(rng.expovariate(1 / dscale), 3 * dscale) + 0.4
    if unit == "air ambulance":
        dist = rng.uniform(18, 85)
    if unit == "rescue boat":
        dist = rng.uniform(1, 14)
    dist = round(dist, 1)
    speed = SPEED.get(unit, 1.3)
    resp = 1.5 + dist * speed + rng.uniform(0, 4) + {"critical": 0, "high": 1.5, "medium": 4, "low": 8}[priority]
    if country == "SE" and city == "Umeå":
        resp += 2.5
    if received.month in (12, 1, 2):
        resp += rng.uniform(0, 2)
    resp = round(resp, 1)

    transported = False
    if not false_alarm and unit in ("ambulance", "air ambulance"):
        transported = rng.random() < {"critical": 0.95, "high": 0.85, "medium": 0.6, "low": 0.35}[priority]
    elif not false_alarm and unit == "rapid response car":
        transported = rng.random() < 0.15

    # closing: same day for most calls, days or weeks for fires and hazmat
    if cat in ("structure fire", "hazardous materials") and not false_alarm:
        lag = rng.choice([0, 0, 1, 2, 3, 5, 9, 14, 21, 30, 45])
    elif cat == "vegetation fire" and not false_alarm:
        lag = rng.choice([0, 0, 0, 1, 2, 4])
    else:
        lag = rng.choice([0, 0, 0, 0, 0, 1])
    closed = received + timedelta(days=lag)
    still_open = closed > CUTOFF or (cat in ("structure fire", "hazardous materials") and not false_alarm
                                     and received >= date(2025, 4, 1) and rng.random() < 0.5)

    crew = rng.choice(CREW[unit])
    cost = BASE_COST[unit] + PER_KM[unit] * dist + (180 if transported else 0) + lag * 25 * (crew > 2)
    if false_alarm:
        cost *= 0.6
    cost = round(cost * rng.uniform(0.95, 1.08), 2)

    year = received.year
    counters[year] += rng.randint(1, 3)
    code = f"EC-{year}-{counters[year]:04d}"

    if false_alarm:
        text = FALSE_OPENING[cat]
        if rng.random() < 0.3:
            text += " Caller was very distressed."
    else:
        text = rng.choice(OPENING[cat])
        added = 0
        for sentence, p, cats in EXTRAS:
            if cats is not None and cat not in cats:
                continue
            if added < 2 and rng.random() < p:
                text += " " + sentence
                added += 1

    rec = {
        "call_ref": code,
        "receivedDate": received.isoformat(),
    }
    if not still_open:
        rec["closed_date"] = closed.isoformat()
    rec.update({
        "caller_first_name": rng.choice(FIRST[country]),
        "callerLastName": rng.choice(LAST[country]),
        "incidentCategory": cat,
        "priority": priority,
        "unit_type": unit,
        "crewSize": crew,
        "response_time_min": resp,
        "distanceKm": dist,
        "country_code": country,
        "city": city,
        "patient_transported": transported,
        "isFalseAlarm": false_alarm,
        "cost_eur": cost,
        "dispatcher": rng.choice(DISPATCHERS[country]),
        "note": text,
    })
    records.append(rec)

with open(os.path.join(HERE, "dispatch_calls.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
