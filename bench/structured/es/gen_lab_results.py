#!/usr/bin/env python3
"""Generate lab_results.jsonl: test results of a network of clinical diagnostic laboratories in
Germany, Austria, Switzerland, Poland and Czechia, samples collected Jan 2024 - Oct 2025.

One record per test result. Mixed snake_case/camelCase fields; patient `patient_first_name` /
`patientLastName`, requesting physician full name in `requestingPhysician`, prose `lab_comment`,
short free-text `courierNote`.

Fields left out when they do not apply:
  - `reportedDate`, `resultValue`, `turnaroundHours`, `abnormal`, `critical`: missing while the
    result is pending (not yet reported)
  - `ref_range_low`: missing on tests whose reference range has only an upper limit
  - `courierNote`: missing when the courier wrote nothing

Seeded and standard library only: the output is the same on every run.
"""
import datetime
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20250917)
N = 350

# site, city, country
SITES = [
    ("Labor Berlin-Mitte", "Berlin", "Germany"),
    ("Laborzentrum München", "Munich", "Germany"),
    ("MVZ Labor Hamburg", "Hamburg", "Germany"),
    ("Labor Wien Alsergrund", "Vienna", "Austria"),
    ("Labor Graz Süd", "Graz", "Austria"),
    ("Laborpraxis Zürich", "Zurich", "Switzerland"),
    ("Labor Basel Rhein", "Basel", "Switzerland"),
    ("Laboratorium Warszawa Mokotów", "Warsaw", "Poland"),
    ("Laboratorium Kraków", "Kraków", "Poland"),
    ("Laboratoř Praha", "Prague", "Czechia"),
    ("Laboratoř Brno", "Brno", "Czechia"),
]
SITE_WEIGHTS = [12, 11, 9, 10, 6, 9, 6, 10, 7, 9, 6]

# test name, panel, unit, specimen, low (None = upper limit only), high, mean, sd, price EUR,
# critical low, critical high, decimals
TESTS = [
    ("Hemoglobin", "Complete blood count", "g/dL", "whole blood", 12.0, 16.0, 13.6, 1.9, 4.20, 7.0, 20.0, 1),
    ("Leukocytes", "Complete blood count", "10^9/L", "whole blood", 4.0, 10.0, 7.2, 2.6, 3.80, 1.5, 30.0, 1),
    ("Platelets", "Complete blood count", "10^9/L", "whole blood", 150, 400, 260, 80, 3.80, 40, 1000, 0),
    ("Glucose", "Metabolic panel", "mmol/L", "plasma", 3.9, 5.6, 5.4, 1.4, 2.90, 2.5, 25.0, 1),
    ("Creatinine", "Metabolic panel", "µmol/L", "serum", 59, 104, 88, 24, 3.10, None, 500, 0),
    ("Potassium", "Metabolic panel", "mmol/L", "serum", 3.5, 5.1, 4.3, 0.55, 2.60, 2.8, 6.2, 1),
    ("Sodium", "Metabolic panel", "mmol/L", "serum", 135, 145, 140, 3.2, 2.60, 120, 160, 0),
    ("ALT", "Liver panel", "U/L", "serum", None, 45, 32, 18, 3.40, None, 1000, 0),
    ("LDL cholesterol", "Lipid panel", "mmol/L", "serum", None, 3.0, 3.1, 0.9, 6.50, None, None, 2),
    ("Triglycerides", "Lipid panel", "mmol/L", "serum", None, 1.7, 1.6, 0.7, 4.80, None, None, 2),
    ("TSH", "Thyroid panel", "mIU/L", "serum", 0.4, 4.0, 2.1, 1.3, 11.50, None, None, 2),
    ("Free T4", "Thyroid panel", "pmol/L", "serum", 12.0, 22.0, 16.5, 3.4, 12.80, None, None, 1),
    ("CRP", "Inflammation", "mg/L", "serum", None, 5.0, 6.0, 9.0, 5.90, None, 300, 1),
    ("HbA1c", "Diabetes", "%", "whole blood", 4.0, 5.6, 5.8, 0.9, 13.40, None, None, 1),
    ("Ferritin", "Iron and vitamins", "µg/L", "serum", 30, 400, 120, 90, 14.20, None, None, 0),
    ("Vitamin D", "Iron and vitamins", "nmol/L", "serum", 75, 250, 68, 28, 24.90, None, None, 0),
    ("Urine albumin", "Urinalysis", "mg/L", "urine", None, 30, 18, 20, 7.60, None, None, 0),
]
TEST_WEIGHTS = [14, 9, 8, 12, 9, 10, 6, 7, 8, 5, 9, 4, 10, 7, 5, 7, 4]
COUNTRY_PRICE = {"Germany": 1.00, "Austria": 1.05, "Switzerland": 1.45, "Poland": 0.70, "Czechia": 0.75}

FIRST = {
    "Germany": ["Lukas", "Anna", "Jonas", "Lea", "Felix", "Marie", "Paul", "Sophie", "Maximilian", "Hannah", "Tobias", "Katharina"],
    "Austria": ["Florian", "Julia", "Stefan", "Lena", "Markus", "Theresa", "Andreas", "Magdalena"],
    "Switzerland": ["Luca", "Nina", "Reto", "Sara", "Beat", "Laura", "Urs", "Mia"],
    "Poland": ["Jakub", "Zuzanna", "Piotr", "Aleksandra", "Tomasz", "Magdalena", "Krzysztof", "Agnieszka"],
    "Czechia": ["Jan", "Tereza", "Petr", "Eliška", "Martin", "Lucie", "Ondřej", "Kateřina"],
}
LAST = {
    "Germany": ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Hoffmann", "Koch"],
    "Austria": ["Gruber", "Huber", "Bauer", "Wagner", "Pichler", "Steiner", "Moser", "Mayer"],
    "Switzerland": ["Meier", "Keller", "Brunner", "Baumann", "Frei", "Zimmermann", "Graf", "Suter"],
    "Poland": ["Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Kamiński", "Lewandowski", "Zieliński", "Szymański"],
    "Czechia": ["Novák", "Svoboda", "Dvořák", "Černý", "Procházka", "Kučera", "Veselý", "Horák"],
}
PHYSICIANS = {
    "Germany": ["Katrin Vogel", "Martin Engel", "Susanne Hartmann", "Oliver Brandt", "Claudia Roth"],
    "Austria": ["Gerhard Aigner", "Elisabeth Hofer", "Wolfgang Leitner"],
    "Switzerland": ["Daniel Marti", "Corinne Widmer", "Thomas Egli"],
    "Poland": ["Ewa Mazur", "Marek Dąbrowski", "Joanna Krawczyk"],
    "Czechia": ["Pavel Šimek", "Jana Marková", "Tomáš Beneš"],
}

COURIER_NOTES = [
    "Cool box, 4 °C on arrival",
    "Picked up late from practice",
    "Box slightly damaged",
    "Delivered by taxi",
    "Received on dry ice",
    "Tube label handwritten",
    "Left at night reception",
    "Second pickup of the day",
    "Ambient transport",
    "Signed for by ward nurse",
]

NORMAL_COMMENTS = [
    "Result within the reference interval. No further action required.",
    "Values consistent with previous results for this patient.",
    "Routine measurement without remarks.",
    "Result checked against the previous sample and found stable.",
]
ABNORMAL_COMMENTS = [
    "Value outside the reference interval; clinical correlation recommended.",
    "Deviation from the previous result noted and reported to the requesting practice.",
    "Result flagged for review by the laboratory physician. Follow-up sample suggested.",
]
HIGH_COMMENTS = [
    "Elevated result; a control measurement in four weeks is advised.",
    "Marked increase compared with the previous sample.",
]
LOW_COMMENTS = [
    "Decreased result; please consider a control measurement.",
]
CRITICAL_COMMENTS = [
    "Critical value confirmed and phoned to the requesting physician within 30 minutes.",
    "Alarm value; the ward was informed by telephone and the call was documented.",
]
SPECIAL = {
    "haemolysed": "Sample slightly haemolysed; the result should be interpreted with caution.",
    "lipaemic": "Lipaemic sample. Measurement performed after high-speed centrifugation.",
    "clotted": "First tube was clotted, so the measurement was done on the backup tube.",
    "delay": "Sample arrived after a courier delay of several hours. Stability limits were still respected.",
    "calibration": "Run repeated after a calibration error on the analyser.",
    "dilution": "Value above the measuring range; result obtained after dilution.",
    "fasting": "Patient was not fasting according to the request form.",
    "icteric": "Icteric sample; interference from bilirubin cannot be excluded.",
    "underfilled": "Tube underfilled, but the volume was sufficient for a single measurement.",
}
PENDING_COMMENTS = [
    "Sample forwarded to a partner laboratory for confirmation.",
    "Awaiting confirmation by the laboratory physician.",
    "Measurement scheduled for the next analyser run.",
]

FEMALE = {"Anna", "Lea", "Marie", "Sophie", "Hannah", "Katharina", "Julia", "Lena", "Theresa",
          "Magdalena", "Nina", "Sara", "Laura", "Mia", "Zuzanna", "Aleksandra", "Agnieszka",
          "Tereza", "Eliška", "Lucie", "Kateřina"}
CZ_FEMININE = {"Novák": "Nováková", "Svoboda": "Svobodová", "Dvořák": "Dvořáková", "Černý": "Černá",
               "Procházka": "Procházková", "Kučera": "Kučerová", "Veselý": "Veselá", "Horák": "Horáková"}


def surname(country, first, last):
    """Polish and Czech surnames take the feminine form for women."""
    if first not in FEMALE:
        return last
    if country == "Poland" and last.endswith("ski"):
        return last[:-1] + "a"
    if country == "Czechia":
        return CZ_FEMININE[last]
    return last


START = datetime.date(2024, 1, 1)
END = datetime.date(2025, 10, 31)
SPAN = (END - START).days


def value_for(t):
    name, panel, unit, spec, low, high, mean, sd, price, clo, chi, dec = t
    v = rng.gauss(mean, sd)
    if rng.random() < 0.04 and chi is not None:
        v = chi * rng.uniform(1.0, 1.3)
    elif rng.random() < 0.03 and clo is not None:
        v = clo * rng.uniform(0.75, 1.0)
    floor = (low if low is not None else high) * 0.15
    v = max(v, floor)
    return float(round(v, dec))


records = []
seen_refs = set()
for i in range(N):
    site, city, country = rng.choices(SITES, SITE_WEIGHTS)[0]
    t = rng.choices(TESTS, TEST_WEIGHTS)[0]
    name, panel, unit, spec, low, high, mean, sd, price, clo, chi, dec = t
    collected = START + datetime.timedelta(days=rng.randint(0, SPAN))
    year = collected.year
    while True:
        ref = f"LR-{year}-{rng.randint(1, 4999):05d}"
        if ref not in seen_refs:
            seen_refs.add(ref)
            break
    days_left = (END - collected).days
    pending = (days_left <= 10 and rng.random() < 0.8) or (days_left <= 45 and rng.random() < 0.2)

    rec = {
        "sampleRef": ref,
        "test_name": name,
        "panel": panel,
        "specimen_type": spec,
    }
    value = None
    abnormal = critical = None
    if not pending:
        value = value_for(t)
        abnormal = (low is not None and value < low) or value > high
        critical = (clo is not None and value < clo) or (chi is not None and value >= chi)
        if critical:
            abnormal = True
        rec["resultValue"] = value
    rec["unit"] = unit
    if low is not None:
        rec["ref_range_low"] = float(low)
    rec["refRangeHigh"] = float(high)
    if not pending:
        rec["abnormal"] = abnormal
        rec["critical"] = critical
    rec["collected_date"] = collected.isoformat()

    repeated = False
    special = None
    if not pending:
        r = rng.random()
        if r < 0.05:
            special = "haemolysed"
        elif r < 0.08 and name in ("Triglycerides", "LDL cholesterol", "Glucose", "ALT", "Creatinine"):
            special = "lipaemic"
        elif r < 0.11:
            special = "clotted"
        elif r < 0.16:
            special = "delay"
        elif r < 0.20:
            special = "calibration"
        elif r < 0.23 and name in ("Glucose", "Triglycerides", "LDL cholesterol"):
            special = "fasting"
        elif 0.23 <= r < 0.25:
            special = "icteric"
        elif 0.25 <= r < 0.28:
            special = "underfilled"
        if chi is not None and value >= chi and rng.random() < 0.5:
            special = "dilution"
        repeated = special in ("calibration", "clotted") or (critical and rng.random() < 0.6) \
            or rng.random() < 0.04

    if not pending:
        tat = rng.uniform(2, 30)
        if special == "delay":
            tat += rng.uniform(12, 30)
        if repeated:
            tat += rng.uniform(4, 20)
        if panel in ("Iron and vitamins", "Thyroid panel", "Diabetes"):
            tat += rng.uniform(10, 40)
        if critical:
            tat = min(tat, rng.uniform(1.5, 6))
        tat = round(tat, 1)
        reported = collected + datetime.timedelta(days=int(tat // 24) + (1 if rng.random() < 0.3 else 0))
        rec["reportedDate"] = reported.isoformat()
        rec["turnaroundHours"] = tat

    first = rng.choice(FIRST[country])
    rec["patient_first_name"] = first
    rec["patientLastName"] = surname(country, first, rng.choice(LAST[country]))
    rec["requestingPhysician"] = rng.choice(PHYSICIANS[country])
    rec["lab_site"] = site
    rec["city"] = city
    rec["country"] = country
    p = price * COUNTRY_PRICE[country]
    if repeated:
        p *= 1.5
    rec["price_eur"] = round(p, 2)
    rec["repeated"] = bool(repeated)

    if pending:
        comment = rng.choice(PENDING_COMMENTS)
    elif special:
        comment = SPECIAL[special]
        if critical and special != "dilution":
            comment += " " + CRITICAL_COMMENTS[0]
    elif critical:
        comment = rng.choice(CRITICAL_COMMENTS)
    elif abnormal:
        if rng.random() < 0.55:
            comment = rng.choice(ABNORMAL_COMMENTS)
        elif value > high:
            comment = rng.choice(HIGH_COMMENTS)
        else:
            comment = rng.choice(LOW_COMMENTS)
    else:
        comment = rng.choice(NORMAL_COMMENTS)
    rec["lab_comment"] = comment
    if special == "delay":
        rec["courierNote"] = "Picked up late from practice"
    elif rng.random() < 0.45:
        rec["courierNote"] = rng.choice(COURIER_NOTES)
    records.append(rec)

records.sort(key=lambda r: (r["collected_date"], r["sampleRef"]))

with open(os.path.join(HERE, "lab_results.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
