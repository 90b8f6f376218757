#!/usr/bin/env python3
"""Generate warehouse_picks.jsonl: pick tasks in the seven warehouses of a logistics company in
NL, DE, BE, PL and CZ, created 2024-2025.

Each record is one pick task: the picker (first and last name in two fields), the warehouse code
and its country, the zone, the SKU and its product category, quantity, weight, pick duration, the
created and completed dates, three flags and a free-text note written by the picker.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `completedDate` on a task that is still open.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251217)

# warehouse code -> (country, weight)
WAREHOUSES = {
    "VNL1": ("NL", 30), "TLB2": ("NL", 18),
    "DUI1": ("DE", 28), "HAM2": ("DE", 20),
    "ANR1": ("BE", 22),
    "POZ1": ("PL", 24),
    "PRG1": ("CZ", 18),
}

# pickers per warehouse; some first and some last names are shared on purpose
PICKERS = {
    "VNL1": [("Daan", "Visser"), ("Sanne", "de Vries"), ("Lotte", "Bakker"), ("Ruben", "Jansen"), ("Anna", "Smit")],
    "TLB2": [("Joris", "van den Berg"), ("Femke", "Mulder"), ("Sanne", "Bakker")],
    "DUI1": [("Lukas", "Weber"), ("Jana", "Fischer"), ("Mehmet", "Yilmaz"), ("Anna", "Weber"), ("Tobias", "Krause")],
    "HAM2": [("Finn", "Hansen"), ("Lea", "Schröder"), ("Jonas", "Meyer"), ("Katharina", "Wolf")],
    "ANR1": [("Wout", "Janssens"), ("Lien", "Peeters"), ("Yasmine", "El Amrani"), ("Pieter", "Maes")],
    "POZ1": [("Jan", "Kowalski"), ("Anna", "Nowak"), ("Piotr", "Wiśniewski"), ("Magda", "Kowalska"), ("Tomasz", "Lewandowski")],
    "PRG1": [("Petr", "Novák"), ("Tereza", "Dvořáková"), ("Jakub", "Černý"), ("Lucie", "Svobodová")],
}

# product category -> (weight, zones with weights, unit weight kg range, quantity range)
CATEGORIES = {
    "electronics": (22, {"high_value": 6, "ambient": 4}, (0.2, 4.5), (1, 6)),
    "apparel": (26, {"ambient": 10}, (0.2, 1.2), (1, 12)),
    "groceries": (30, {"chilled": 7, "frozen": 4, "ambient": 2}, (0.3, 2.5), (2, 24)),
    "household": (22, {"ambient": 6, "bulk": 4}, (0.4, 6.0), (1, 10)),
    "toys": (14, {"ambient": 8, "bulk": 2}, (0.2, 3.0), (1, 8)),
    "garden": (12, {"bulk": 7, "ambient": 3}, (1.5, 18.0), (1, 4)),
    "pet supplies": (14, {"ambient": 5, "bulk": 5}, (0.5, 15.0), (1, 6)),
}

SHIFTS = {"early": 45, "late": 38, "night": 17}

# note sentences: (text, probability, condition)
NOTES_CLEAN = [
    "Picked without issues.",
    "All items picked and scanned.",
    "Picked and placed on the outbound trolley.",
    "No issues, tote sent to packing.",
]

TODAY = date(2025, 12, 15)
START = date(2024, 1, 3)
END = date(2025, 12, 12)
N = 352

# one SKU pool per category
skus = {}
used = set()
for cat, (_, zones, (wmin, wmax), _q) in CATEGORIES.items():
    skus[cat] = []
    for _ in range(14):
        while True:
            code = f"SKU-{rng.randint(10000, 99999)}"
            if code not in used:
                used.add(code)
                break
        zone = rng.choices(list(zones), weights=list(zones.values()))[0]
        unit_w = round(rng.uniform(wmin, wmax), 2)
        fragile = cat in ("electronics", "household", "groceries") and rng.random() < 0.35
        skus[cat].append((code, zone, unit_w, fragile))

days = [START + timedelta(days=d) for d in range((END - START).days + 1)]
created_days = sorted(rng.choice(days) for _ in range(N))
counters = {2024: 0, 2025: 0}
records = []
for created in created_days:
    wh = rng.choices(list(WAREHOUSES), weights=[w for _, w in WAREHOUSES.values()])[0]
    country = WAREHOUSES[wh][0]
    first, last = rng.choice(PICKERS[wh])
    cat = rng.choices(list(CATEGORIES), weights=[c[0] for c in CATEGORIES.values()])[0]
    sku, zone, unit_w, fragile = rng.choice(skus[cat])
    qmin, qmax = CATEGORIES[cat][3]
    qty = rng.randint(qmin, qmax)
    weight = round(unit_w * qty, 1)
    if weight == 0:
        weight = 0.1
    shift = rng.choices(list(SHIFTS), weights=list(SHIFTS.values()))[0]
    priority = rng.random() < (0.30 if cat in ("groceries", "electronics") else 0.18)

    # duration: travel + handling per unit, slower in the cold and for bulk
    base = {"ambient": 95, "chilled": 120, "frozen": 150, "bulk": 210, "high_value": 140}[zone]
    dur = base + qty * rng.uniform(6, 14) + weight * rng.uniform(1.0, 3.0)
    if priority:
        dur *= 0.8
    if shift == "night":
        dur *= 1.1
    dur = int(max(30, rng.gauss(dur, dur * 0.2)))

    # notes and short picks
    sentences = []
    short = rng.random() < 0.11
    if short:
        sentences.append(rng.choice([
            "Location empty, only part of the quantity found.",
            "Stock short at the location, rest found in overflow was damaged.",
            "Location empty, checked overflow but nothing there.",
            "Not enough stock at the location, short picked.",
        ]))
    extras = []
    if rng.random() < 0.10:
        extras.append("Barcode label torn, entered the SKU by hand.")
    if rng.random() < 0.08:
        extras.append("Scanner froze and had to be restarted.")
    if zone == "bulk" and rng.random() < 0.30:
        extras.append("Needed a forklift for the top level.")
    if zone != "bulk" and rng.random() < 0.07:
        extras.append("Used a ladder to reach the top shelf.")
    if rng.random() < 0.07:
        extras.append("Pallet blocking the aisle, took the long way round.")
    if fragile and rng.random() < 0.25:
        extras.append("One item damaged in the box, replaced from overflow.")
    if zone == "frozen" and rng.random() < 0.25:
        extras.append("Freezer door was stuck again.")
    if cat == "groceries" and zone != "frozen" and rng.random() < 0.22:
        extras.append("One carton leaking, replaced it.")
    rng.shuffle(extras)
    sentences.extend(extras[:2])
    if not sentences:
        sentences.append(rng.choice(NOTES_CLEAN))
    note = " ".join(sentences)

    # completion: usually same day or next; some tasks still open
    if created > TODAY - timedelta(days=6) and rng.random() < 0.6:
        completed = None
    elif rng.random() < 0.045:
        completed = None
    else:
        lag = rng.choices([0, 1, 2, 3, 5], weights=[62, 24, 8, 4, 2])[0]
        if priority:
            lag = min(lag, 1)
        completed = created + timedelta(days=lag)
        if completed > TODAY:
            completed = None

    year = created.year
    counters[year] += rng.randint(1, 5)
    rec = {
        "task_id": f"PK-{year}-{counters[year]:05d}",
        "warehouse_code": wh,
        "country_code": country,
        "zone": zone,
        "sku": sku,
        "productCategory": cat,
        "shift": shift,
        "picker_first_name": first,
        "pickerLastName": last,
        "quantity": qty,
        "weight_kg": weight,
        "pick_duration_sec": dur,
        "created_date": created.isoformat(),
    }
    if completed is not None:
        rec["completedDate"] = completed.isoformat()
    rec.update({
        "is_priority": priority,
        "wasShortPicked": short,
        "is_fragile": fragile,
        "picker_note": note,
    })
    records.append(rec)

with open(os.path.join(HERE, "warehouse_picks.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
