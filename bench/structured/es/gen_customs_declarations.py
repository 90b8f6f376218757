#!/usr/bin/env python3
"""Generate customs_declarations.jsonl: import declarations lodged at nine EU sea ports, cargo
airports and land border crossings (rail and road) in NL, BE, DE, ES, PL and BG, submitted
March 2024 - October 2025.

Each record is one declaration: the declarant (first and last name in two fields), the port or
crossing with its country code and transport mode, the country of origin of the goods, the goods
category and HS code, the declared value, the duty paid in EUR, the gross weight and number of
packages, two flags (physically inspected, perishable goods), the decision (cleared, held, seized,
refused), the inspecting officer (full name in one field) and a free-text officer note.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `clearedDate` on a declaration that was not cleared
(still held, seized or refused), `inspecting_officer` on a declaration that was not physically
inspected, `officer_note` where the officer wrote none.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261129)

# port / crossing -> (country code, transport mode, weight, origins with weights)
PORTS = {
    "Rotterdam Maasvlakte": ("NL", "sea", 62, {"CN": 30, "US": 14, "BR": 10, "IN": 12, "VN": 10, "ZA": 6}),
    "Antwerp Deurganck": ("BE", "sea", 48, {"CN": 24, "US": 12, "IN": 12, "BR": 8, "VN": 8, "ZA": 6}),
    "Hamburg Waltershof": ("DE", "sea", 44, {"CN": 30, "US": 12, "VN": 10, "IN": 8, "KR": 8}),
    "Algeciras": ("ES", "sea", 32, {"MA": 30, "BR": 10, "CN": 10, "ZA": 6}),
    "Frankfurt Airport Cargo": ("DE", "air", 40, {"CN": 16, "US": 18, "IN": 10, "KR": 10}),
    "Schiphol Cargo": ("NL", "air", 36, {"CN": 14, "US": 14, "KE": 14, "IN": 8, "KR": 6}),
    "Medyka": ("PL", "road", 34, {"UA": 100}),
    "Kapitan Andreevo": ("BG", "road", 30, {"TR": 100}),
    "Małaszewicze": ("PL", "rail", 24, {"CN": 100}),
}

# officers per port (full name in one field); one officer covers both Polish crossings
OFFICERS = {
    "Rotterdam Maasvlakte": ["Maarten van Dijk", "Yvonne Bakker", "Sander Koster"],
    "Antwerp Deurganck": ["Pieter Vermeulen", "An De Wilde"],
    "Hamburg Waltershof": ["Katrin Vogel", "Stefan Krause", "Björn Hansen"],
    "Algeciras": ["Rocío Jiménez", "Manuel Ortega"],
    "Frankfurt Airport Cargo": ["Tobias Braun", "Sabine Wolf"],
    "Schiphol Cargo": ["Ingrid Post", "Rachid El Idrissi"],
    "Medyka": ["Agnieszka Kowalczyk", "Marek Nowicki"],
    "Kapitan Andreevo": ["Georgi Petrov", "Desislava Ivanova"],
    "Małaszewicze": ["Marek Nowicki", "Ewa Zając"],
}

# goods category -> (weight, HS codes, EUR per kg range, weight range kg, duty rate, perishable)
CATEGORIES = {
    "electronics": (20, ["8471.30", "8517.13", "8528.72"], (35, 160), (80, 6000), 0.02, False),
    "clothing": (16, ["6109.10", "6203.42", "6110.20"], (9, 40), (150, 9000), 0.12, False),
    "machinery": (14, ["8413.70", "8481.80", "8429.52"], (6, 30), (400, 24000), 0.017, False),
    "fresh produce": (14, ["0805.10", "0803.90", "0702.00"], (0.7, 2.6), (2000, 22000), 0.08, True),
    "seafood": (8, ["0306.17", "0303.14"], (5, 16), (800, 18000), 0.06, True),
    "pharmaceuticals": (8, ["3004.90", "3002.15"], (60, 400), (20, 1800), 0.0, False),
    "tobacco": (5, ["2402.20", "2403.11"], (18, 60), (200, 6000), 0.35, False),
    "toys": (8, ["9503.00"], (6, 22), (200, 7000), 0.047, False),
    "auto parts": (10, ["8708.30", "8708.99"], (8, 35), (150, 12000), 0.03, False),
}

# which categories come in through which port type / origin (multiplies the weight)
ORIGIN_BIAS = {
    "MA": {"fresh produce": 5, "seafood": 3, "clothing": 2},
    "KE": {"fresh produce": 6, "pharmaceuticals": 0.5},
    "TR": {"clothing": 3, "fresh produce": 2, "tobacco": 2, "auto parts": 2},
    "UA": {"fresh produce": 2, "machinery": 2, "tobacco": 2},
    "BR": {"fresh produce": 3, "seafood": 2},
    "ZA": {"fresh produce": 4},
    "VN": {"clothing": 3, "seafood": 2, "electronics": 2},
    "IN": {"pharmaceuticals": 4, "clothing": 2},
    "US": {"machinery": 2, "pharmaceuticals": 2},
    "KR": {"electronics": 3, "auto parts": 2},
    "CN": {"electronics": 3, "toys": 2},
}
MODE_BIAS = {
    "air": {"electronics": 2, "pharmaceuticals": 3, "machinery": 0.2, "auto parts": 0.4},
    "rail": {"fresh produce": 0.05, "seafood": 0.05, "pharmaceuticals": 0.2},
    "road": {},
    "sea": {},
}

FIRST = {
    "NL": ["Jeroen", "Marloes", "Wouter", "Femke", "Bas", "Lisanne", "Koen", "Esther"],
    "BE": ["Jan", "Kristof", "Ellen", "Nathalie", "Wim", "Sofie"],
    "DE": ["Andreas", "Julia", "Markus", "Nina", "Thomas", "Kerstin", "Jan"],
    "ES": ["Alejandro", "Beatriz", "Francisco", "Isabel", "Raúl"],
    "PL": ["Piotr", "Katarzyna", "Tomasz", "Magdalena", "Krzysztof", "Joanna"],
    "BG": ["Ivan", "Elena", "Dimitar", "Mariya", "Nikolai"],
}
LAST = {
    "NL": ["de Vries", "van den Berg", "Dekker", "Verbeek", "Willemsen", "Kok"],
    "BE": ["Peeters", "Van Damme", "Lemmens", "Wouters", "Claeys"],
    "DE": ["Schröder", "Lehmann", "Hartmann", "Weber", "Keller", "Vogt"],
    "ES": ["Moreno", "Delgado", "Herrera", "Navarro", "Molina"],
    "PL": ["Wiśniewski", "Lewandowska", "Kamiński", "Wójcik", "Mazur"],
    "BG": ["Georgiev", "Dimitrova", "Stoyanov", "Todorova", "Kolev"],
}

START = date(2024, 3, 1)
END = date(2025, 10, 31)
N = 350

# officer note themes: (sentence, categories it applies to or None for any, status effect)
NOTE_CLEAN = [
    "Cargo matches the declaration, no issues found.",
    "Physical check completed, goods as declared.",
    "Random check, nothing to report.",
]
NOTE_THEMES = {
    "xray": "X-ray scan showed cartons behind the pallets that were not on the manifest.",
    "seal": "The container seal number did not match the bill of lading.",
    "invoice": "Invoice value looks far too low for these goods, valuation under review.",
    "coldchain": "Cold chain broken: the temperature logger showed 14 degrees on arrival.",
    "counterfeit": "Counterfeit branded goods found in several cartons.",
    "phyto": "Phytosanitary certificate missing for the consignment.",
    "dog": "Sniffer dog indicated on the rear of the trailer.",
    "excise": "Excise stamps missing on part of the cartons.",
    "damaged": "Packaging damaged in transit, goods partly unusable.",
    "reclass": "Goods reclassified under a different HS code after inspection.",
    "licence": "Import licence for medicinal products could not be shown.",
    "pests": "Live insects found in the produce, sample sent to the lab.",
    "battery": "Lithium batteries packed without the required labels.",
    "weight": "Gross weight on the scale differs from the declared weight.",
}
DOC_ONLY = [
    "Documents checked only.",
    "Pre-arrival data complete, released on documents.",
]

declarants = []
used = set()
for port, (cc, _mode, w, _orig) in PORTS.items():
    n = max(4, w // 8)
    for _ in range(n):
        while True:
            fn, ln = rng.choice(FIRST[cc]), rng.choice(LAST[cc])
            if (fn, ln) not in used:
                used.add((fn, ln))
                break
        declarants.append({"first": fn, "last": ln, "port": port,
                           "activity": rng.choice([1, 1, 2, 3, 5])})

days = [START + timedelta(days=d) for d in range((END - START).days + 1)]
sub_days = sorted(rng.choice(days) for _ in range(N))
counters = {2024: 0, 2025: 0}
records = []
port_names = list(PORTS)
for sub in sub_days:
    port = rng.choices(port_names, weights=[p[2] for p in PORTS.values()])[0]
    cc, mode, _w, origins = PORTS[port]
    origin = rng.choices(list(origins), weights=list(origins.values()))[0]
    cats = list(CATEGORIES)
    weights = []
    for c in cats:
        wt = CATEGORIES[c][0] * ORIGIN_BIAS.get(origin, {}).get(c, 1) * MODE_BIAS[mode].get(c, 1)
        weights.append(wt)
    cat = rng.choices(cats, weights=weights)[0]
    cw, hs_codes, eur_kg, wrange, duty_rate, perishable = CATEGORIES[cat]
    hs = rng.choice(hs_codes)
    if cat == "pharmaceuticals":
        perishable = hs == "3002.15"  # vaccines and blood products travel in the cold chain

    lo, hi = wrange
    if mode == "air":
        hi = min(hi, 3000)
        lo = min(lo, hi // 4)
    weight = round(rng.uniform(lo ** 0.5, hi ** 0.5) ** 2, 1)
    value = round(weight * rng.uniform(*eur_kg), 2)
    packages = max(1, int(weight / rng.uniform(8, 40)))
    if cat in ("machinery",) and weight > 5000:
        packages = rng.randint(1, 6)

    d = rng.choices(declarants, weights=[x["activity"] * (4 if x["port"] == port else 0.05)
                                         for x in declarants])[0]

    risk = 0.18
    if cat in ("tobacco",):
        risk = 0.65
    elif cat in ("seafood", "fresh produce", "pharmaceuticals"):
        risk = 0.35
    elif cat in ("toys", "clothing", "electronics"):
        risk = 0.25
    if mode == "road":
        risk += 0.12
    inspected = rng.random() < risk

    themes = []
    if inspected:
        pool = ["seal", "invoice", "weight", "damaged", "reclass"]
        if mode in ("sea", "rail"):
            pool += ["xray", "xray"]
        if mode == "road":
            pool += ["dog", "dog", "xray"]
        if perishable:
            pool += ["coldchain", "coldchain"]
        if cat == "fresh produce":
            pool += ["phyto", "phyto", "pests"]
        if cat in ("clothing", "toys", "electronics", "auto parts"):
            pool += ["counterfeit", "counterfeit"]
        if cat == "tobacco":
            pool += ["excise", "excise", "excise", "dog"]
        if cat == "pharmaceuticals":
            pool += ["licence", "licence"]
        if cat == "electronics":
            pool += ["battery", "battery"]
        if rng.random() < 0.7:
            themes.append(rng.choice(pool))
            if rng.random() < 0.25:
                t2 = rng.choice(pool)
                if t2 not in themes:
                    themes.append(t2)

    # decision
    if not inspected:
        status = "held" if rng.random() < 0.03 else "cleared"
    elif not themes:
        status = "cleared" if rng.random() < 0.95 else "held"
    else:
        severe = {"counterfeit", "excise", "licence", "dog", "xray"} & set(themes)
        food = {"phyto", "pests", "coldchain"} & set(themes)
        r = rng.random()
        if severe:
            status = "seized" if r < 0.45 else ("held" if r < 0.75 else "cleared")
        elif food:
            status = "refused" if r < 0.5 else ("held" if r < 0.7 else "cleared")
        else:
            status = "held" if r < 0.4 else "cleared"
    # recent inspected declarations are more often still open
    if status == "cleared" and inspected and (END - sub).days < 25 and rng.random() < 0.5:
        status = "held"

    cleared = None
    if status == "cleared":
        if inspected:
            cleared = sub + timedelta(days=rng.choice([1, 1, 2, 3, 4, 6, 9, 12]))
        else:
            cleared = sub + timedelta(days=rng.choice([0, 0, 0, 1, 1, 2]))

    duty = round(value * duty_rate * (0.0 if rng.random() < 0.12 else 1.0), 2)
    if origin in ("UA", "MA", "ZA", "KE") and cat not in ("tobacco",):
        duty = 0.0  # preferential origin under a trade agreement
    if cat == "tobacco":
        duty = round(duty + weight * 1.6, 2)

    note = None
    if inspected:
        if themes:
            note = " ".join(NOTE_THEMES[t] for t in themes)
        elif rng.random() < 0.7:
            note = rng.choice(NOTE_CLEAN)
    elif rng.random() < 0.12:
        note = rng.choice(DOC_ONLY)

    year = sub.year
    counters[year] += rng.randint(1, 3)
    rec = {
        "declaration_id": f"CD-{year}-{counters[year]:04d}",
        "submittedDate": sub.isoformat(),
    }
    if cleared is not None:
        rec["clearedDate"] = cleared.isoformat()
    rec.update({
        "declarant_first_name": d["first"],
        "declarantLastName": d["last"],
        "port_name": port,
        "portCountry": cc,
        "transport_mode": mode,
        "originCountry": origin,
        "goods_category": cat,
        "hsCode": hs,
        "declared_value_eur": value,
        "dutyPaidEur": duty,
        "weight_kg": weight,
        "packageCount": packages,
        "wasInspected": inspected,
        "is_perishable": perishable,
        "status": status,
    })
    if inspected:
        rec["inspecting_officer"] = rng.choice(OFFICERS[port])
    if note is not None:
        rec["officer_note"] = note
    records.append(rec)

with open(os.path.join(HERE, "customs_declarations.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
