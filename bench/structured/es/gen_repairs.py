#!/usr/bin/env python3
"""Generate repairs.jsonl: appliance repair jobs of a repair service in five European countries.

Seeded and standard-library only, so every run writes the same file. A field that does not apply
to a job is left out (completedDate on an open job, customerRating on an unrated job, the cost
fields on a cancelled or open job).
"""
import datetime
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251103)

CITIES = {
    "DE": ["Berlin", "Hamburg", "Munich"],
    "NL": ["Amsterdam", "Rotterdam", "Utrecht"],
    "BE": ["Brussels", "Antwerp", "Ghent"],
    "FR": ["Lyon", "Lille"],
    "AT": ["Vienna", "Graz"],
}
COUNTRY_WEIGHTS = {"DE": 30, "NL": 25, "BE": 18, "FR": 15, "AT": 12}
TECHNICIANS = {
    "DE": [("Jonas", "Weber"), ("Lukas", "Becker"), ("Anna", "Schulz")],
    "NL": [("Daan", "de Vries"), ("Sanne", "Bakker"), ("Thomas", "Visser")],
    "BE": [("Thomas", "Peeters"), ("Lotte", "Janssens")],
    "FR": [("Julien", "Martin"), ("Camille", "Dubois")],
    "AT": [("Lukas", "Gruber"), ("Eva", "Huber")],
}
HOURLY_RATE = {"DE": 68, "NL": 62, "BE": 60, "FR": 58, "AT": 65}
CALLOUT_FEE = 45

BRANDS = ["Bosch", "Miele", "Samsung", "LG", "Whirlpool", "Electrolux", "Beko", "Siemens"]
BRAND_WEIGHTS = [20, 14, 14, 10, 12, 12, 10, 8]

# appliance type -> list of (fault sentence, part cost range or None, labour hours range)
FAULTS = {
    "washing machine": [
        ("Worn drum bearing causing a loud rumble during the spin cycle; bearing replaced.", (60, 140), (2.0, 4.0)),
        ("Blocked drain pump; a sock was removed from the pump filter.", None, (0.5, 1.5)),
        ("Door seal torn and leaking water at the front; door seal replaced.", (35, 80), (1.0, 2.0)),
        ("Error code E21 shown on the display; drain pump motor replaced.", (45, 90), (1.0, 2.0)),
        ("Carbon brushes of the motor worn down; brushes replaced.", (25, 50), (1.0, 2.0)),
    ],
    "dishwasher": [
        ("Error code E15 shown; water found in the base tray from a leaking hose.", (20, 45), (1.0, 2.0)),
        ("Blocked drain pump; pump cleared and the filter cleaned.", None, (0.5, 1.5)),
        ("Heating element failed and the water stayed cold; heating element replaced.", (55, 110), (1.0, 2.5)),
        ("Spray arm cracked; spray arm replaced and heavy limescale removed from the nozzles.", (15, 40), (0.5, 1.5)),
    ],
    "fridge": [
        ("Faulty thermostat, the fridge was not cooling; thermostat replaced.", (30, 70), (1.0, 2.0)),
        ("Compressor not starting; start relay replaced.", (25, 60), (1.0, 2.5)),
        ("Door seal worn and cold air escaping; door seal replaced.", (40, 90), (1.0, 2.0)),
        ("Blocked defrost drain causing water on the floor; drain cleared.", None, (0.5, 1.5)),
        ("Noisy fan motor in the back panel; fan motor replaced.", (35, 75), (1.0, 2.0)),
    ],
    "freezer": [
        ("Ice build-up caused by a failed defrost heater; heater replaced.", (40, 85), (1.5, 3.0)),
        ("Faulty thermostat, the freezer was running constantly; thermostat replaced.", (30, 70), (1.0, 2.0)),
        ("Compressor failed; unit judged beyond economic repair.", None, (0.5, 1.0)),
    ],
    "oven": [
        ("Faulty thermostat, the oven was overheating; thermostat replaced.", (35, 75), (1.0, 2.0)),
        ("Heating element burnt out; heating element replaced.", (45, 95), (1.0, 2.0)),
        ("Door hinge broken on the left side; hinge replaced.", (20, 50), (1.0, 1.5)),
        ("Fan motor seized and the oven heated unevenly; fan motor replaced.", (50, 110), (1.5, 2.5)),
    ],
    "tumble dryer": [
        ("Drum belt snapped; belt replaced.", (15, 35), (1.0, 2.0)),
        ("Blocked condenser; lint removed and the sensor cleaned.", None, (0.5, 1.5)),
        ("Error code F05 shown; heating element replaced.", (50, 100), (1.0, 2.0)),
    ],
    "microwave": [
        ("Magnetron failed and the food stayed cold; magnetron replaced.", (60, 120), (1.0, 1.5)),
        ("Door switch faulty, the microwave would not start; switch replaced.", (10, 30), (0.5, 1.0)),
    ],
}
APPLIANCE_WEIGHTS = {
    "washing machine": 26, "dishwasher": 17, "fridge": 18, "freezer": 8,
    "oven": 14, "tumble dryer": 10, "microwave": 7,
}

START = datetime.date(2024, 10, 1)
END = datetime.date(2025, 6, 30)
N = 380


def pick(weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def main():
    jobs = []
    span = (END - START).days
    for _ in range(N):
        jobs.append(START + datetime.timedelta(days=rng.randint(0, span)))
    jobs.sort()
    counters = {}
    out = []
    for job_date in jobs:
        country = pick(COUNTRY_WEIGHTS)
        city = rng.choice(CITIES[country])
        first, last = rng.choice(TECHNICIANS[country])
        appliance = pick(APPLIANCE_WEIGHTS)
        brand = rng.choices(BRANDS, weights=BRAND_WEIGHTS)[0]
        age = rng.choices(range(0, 16), weights=[6, 9, 9, 8, 8, 7, 7, 6, 5, 5, 4, 3, 3, 2, 2, 1])[0]
        warranty = age <= 1 or (age == 2 and rng.random() < 0.5)
        repeat = rng.random() < 0.14
        fault, parts_range, hours_range = rng.choice(FAULTS[appliance])

        days_before_end = (END - job_date).days
        r = rng.random()
        if days_before_end < 21 and r < 0.6:
            status = "open"
        elif days_before_end < 50 and r < 0.4:
            status = "awaiting_parts" if parts_range else "open"
        elif r < 0.07:
            status = "cancelled"
        else:
            status = "completed"

        key = job_date.strftime("%y%m")
        counters[key] = counters.get(key, 0) + 1
        rec = {
            "job_code": f"JOB-{key}-{counters[key]:03d}",
            "applianceType": appliance,
            "brand": brand,
            "customer_city": city,
            "customerCountry": country,
            "tech_first_name": first,
            "techLastName": last,
            "job_date": job_date.isoformat(),
        }
        if status == "completed":
            done = job_date + datetime.timedelta(days=rng.choice([0, 0, 0, 1, 1, 2, 3, 5, 7, 9, 12]))
            rec["completedDate"] = done.isoformat()
        rec["appliance_age_years"] = age
        if status in ("completed", "awaiting_parts"):
            lo, hi = hours_range
            hours = lo + 0.5 * rng.randint(0, int((hi - lo) / 0.5))
            if status != "completed":
                hours = max(0.5, hours - 0.5)
            rec["labour_hours"] = hours
            parts = 0.0
            if parts_range and status == "completed":
                parts = round(rng.uniform(*parts_range), 2)
            elif parts_range and status == "awaiting_parts":
                parts = round(rng.uniform(*parts_range), 2)
            rec["parts_cost_eur"] = parts
            if status == "completed":
                rec["invoiceTotalEur"] = round(CALLOUT_FEE + hours * HOURLY_RATE[country] + parts, 2)
        rec["underWarranty"] = warranty
        rec["is_repeat_visit"] = repeat
        rec["status"] = status
        if status == "completed" and rng.random() < 0.7:
            base = 4.3 - (0.9 if repeat else 0) - (0.4 if rec["completedDate"] > (job_date + datetime.timedelta(days=4)).isoformat() else 0)
            rec["customerRating"] = max(1, min(5, round(base + rng.uniform(-2.0, 1.2))))
        if status == "cancelled":
            rec["diagnosis"] = rng.choice([
                "Customer cancelled the appointment before the visit.",
                "Job cancelled by the customer; the appliance was replaced instead.",
                "Customer not at home at the agreed time; job cancelled after two attempts.",
            ])
        elif status == "awaiting_parts":
            rec["diagnosis"] = fault.split(";")[0] + ". Replacement part on order."
        elif status == "open":
            rec["diagnosis"] = "Suspected fault: " + fault[0].lower() + fault[1:].split(";")[0] + ". Visit booked."
        else:
            extra = ""
            if repeat:
                extra = " Second visit for the same fault."
            rec["diagnosis"] = fault + extra
        out.append(rec)
    with open(os.path.join(HERE, "repairs.jsonl"), "w", encoding="utf-8") as f:
        for rec in out:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
