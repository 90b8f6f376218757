#!/usr/bin/env python3
"""Generate parcels.jsonl: parcel shipments of a courier company in several European countries.

Seeded and standard-library only, so every run writes the same file. A field that does not apply
to a record is left out: `deliveredDate` and `delivered_late` on a parcel that has not been
delivered.
"""
import datetime
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "parcels.jsonl")
N = 360

CITIES = {
    "DE": ["Berlin", "Hamburg", "Munich", "Cologne"],
    "PL": ["Warsaw", "Krakow", "Gdansk", "Wroclaw"],
    "NL": ["Amsterdam", "Rotterdam", "Utrecht"],
    "BE": ["Brussels", "Antwerp", "Ghent"],
    "FR": ["Paris", "Lyon", "Lille"],
    "AT": ["Vienna", "Graz"],
    "CZ": ["Prague", "Brno"],
    "CH": ["Zurich", "Geneva"],
}
DEST_WEIGHTS = {"DE": 24, "PL": 18, "NL": 13, "BE": 10, "FR": 12, "AT": 8, "CZ": 7, "CH": 8}
ORIGIN_WEIGHTS = {"DE": 30, "PL": 22, "NL": 16, "BE": 8, "FR": 10, "AT": 6, "CZ": 8}

# (company, home country)
SENDERS = [
    ("Nordwind Textil GmbH", "DE"),
    ("Hanseatic Books", "DE"),
    ("Alpine Outdoor Gear", "AT"),
    ("Vistula Electronics", "PL"),
    ("Mazur Furniture", "PL"),
    ("Baltic Amber Trading", "PL"),
    ("Tulip Home Goods", "NL"),
    ("Delta Bike Parts", "NL"),
    ("Flanders Print House", "BE"),
    ("Atelier Lumiere", "FR"),
    ("Bohemia Glassworks", "CZ"),
    ("Rhine Valley Wines", "DE"),
]

# (first, last, home country)
DRIVERS = [
    ("Lukas", "Weber", "DE"),
    ("Anna", "Schmidt", "DE"),
    ("Lena", "Fischer", "DE"),
    ("Marta", "Nowak", "PL"),
    ("Piotr", "Nowak", "PL"),
    ("Anna", "Zielinska", "PL"),
    ("Pieter", "de Vries", "NL"),
    ("Emma", "Janssens", "BE"),
    ("Sophie", "Laurent", "FR"),
    ("Julia", "Hofer", "AT"),
    ("Tomas", "Dvorak", "CZ"),
    ("Karel", "Peeters", "BE"),
]

SERVICES = ["economy", "standard", "express", "overnight"]
SERVICE_WEIGHTS = [25, 45, 22, 8]
SERVICE_DAYS = {"economy": 5, "standard": 3, "express": 2, "overnight": 1}
SERVICE_RATE = {"economy": 0.8, "standard": 1.0, "express": 1.6, "overnight": 2.4}

START = datetime.date(2024, 1, 2)
END = datetime.date(2025, 6, 29)
TODAY = datetime.date(2025, 6, 30)

HANDOVER = [
    "Handed to the recipient at the front door.",
    "Handed to the recipient in person.",
    "Delivered to the reception desk of the office.",
    "Left with a neighbour two doors down.",
    "Left with a neighbour because nobody answered.",
    "Placed in the parcel locker next to the supermarket.",
    "Left in the agreed safe place behind the garden gate.",
    "Signed for by a colleague of the recipient.",
]
FRAGILE = [
    "Contents marked as fragile glassware.",
    "Fragile label on every side of the box.",
    "Sender asked for careful handling because the contents are fragile.",
]
DAMAGED = [
    "The box arrived damaged at one corner; photos were taken.",
    "Outer carton damaged in the sorting hub and taped up again.",
    "Recipient reported a damaged box on arrival.",
]
CUSTOMS = [
    "Held for two days because of a customs delay at the Swiss border.",
    "Customs delay while the invoice was checked.",
    "Customs delay until the sender supplied a missing document.",
]
MISSED = [
    "First attempt failed because the recipient was not at home.",
    "Nobody at home on the first visit; a card was left in the letterbox.",
    "The driver could not find the entrance on the first visit.",
]
WRONG_ADDRESS = [
    "The label showed a wrong address, so the driver called the recipient.",
    "Wrong address on the label; the sender confirmed the right one by phone.",
]
TRANSIT = [
    "Scanned at the sorting hub and loaded for the next leg.",
    "On the way to the regional depot.",
    "Waiting at the depot for the next line haul.",
]
OUT_FOR = [
    "On the van for delivery today.",
    "Loaded on the morning route.",
]
RETURNED = [
    "Refused by the recipient and sent back to the sender.",
    "Three failed attempts, so the parcel went back to the sender.",
]
LOST = [
    "Last scanned at the sorting hub; a trace has been opened.",
    "No scan since the line haul; the claim team is investigating.",
]
EXTRA = [
    "Recipient asked for an evening delivery.",
    "Heavy parcel, delivered with a hand truck.",
    "Sender requested a photo on delivery.",
    "Driver noted a barking dog in the yard.",
    "",
    "",
    "",
    "",
]


def pick_weighted(rng, weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def main():
    rng = random.Random(20251106)
    used_codes = set()
    records = []
    span = (END - START).days
    for _ in range(N):
        while True:
            code = f"TRK-{rng.randint(1000000, 9999999)}"
            if code not in used_codes:
                used_codes.add(code)
                break
        sender, home = rng.choice(SENDERS)
        origin = home if rng.random() < 0.85 else pick_weighted(rng, ORIGIN_WEIGHTS)
        dest = pick_weighted(rng, DEST_WEIGHTS)
        dest_city = rng.choice(CITIES[dest])
        service = rng.choices(SERVICES, weights=SERVICE_WEIGHTS)[0]
        if service == "overnight" and dest == "CH":
            service = "express"

        if service == "economy":
            weight = round(rng.uniform(2.0, 38.0), 1)
        elif service == "overnight":
            weight = round(rng.uniform(0.2, 6.0), 1)
        else:
            weight = round(rng.choice([rng.uniform(0.2, 5.0), rng.uniform(0.5, 25.0)]), 1)
        if sender in ("Mazur Furniture",) and rng.random() < 0.7:
            weight = round(rng.uniform(15.0, 39.5), 1)

        if sender in ("Vistula Electronics", "Bohemia Glassworks", "Baltic Amber Trading"):
            declared = round(rng.uniform(80, 4800), 2)
        else:
            declared = round(rng.uniform(15, 900), 2)

        cross = origin != dest
        base = 4.5 + 0.55 * weight + (6.0 if cross else 0.0) + (9.0 if dest == "CH" else 0.0)
        cost = round(base * SERVICE_RATE[service] + rng.uniform(-0.8, 0.8), 2)

        insured = declared > 1500 or rng.random() < 0.2

        fm = [f for f in DRIVERS if f[2] == dest]
        if dest in ("AT", "CH"):
            fm = [f for f in DRIVERS if f[2] in ("AT",)] + [DRIVERS[0]]
        if dest == "CZ":
            fm = [f for f in DRIVERS if f[2] == "CZ"] + [DRIVERS[5]]
        if dest == "FR":
            fm = [f for f in DRIVERS if f[2] == "FR"] + [DRIVERS[11]]
        driver = rng.choice(fm)

        if rng.random() < 0.04:
            pickup = TODAY - datetime.timedelta(days=rng.randint(1, 10))
        else:
            pickup = START + datetime.timedelta(days=rng.randint(0, span))
        age = (TODAY - pickup).days

        fragile = sender in ("Bohemia Glassworks", "Rhine Valley Wines") or rng.random() < 0.08
        damaged = rng.random() < (0.16 if fragile else 0.06)
        customs = dest == "CH" and rng.random() < 0.5
        wrong_addr = rng.random() < 0.05

        if age <= 10:
            status = rng.choice(["in_transit", "in_transit", "out_for_delivery"]) if age <= 6 or rng.random() < 0.6 else "delivered"
        else:
            r = rng.random()
            status = "delivered" if r < 0.92 else ("returned" if r < 0.97 else "lost")

        sentences = []
        attempts = 0
        delivered = None
        late = None
        if status == "delivered":
            attempts = 1
            missed = rng.random() < 0.12 or wrong_addr
            if missed:
                attempts = rng.choice([2, 2, 3])
            days = SERVICE_DAYS[service] + (1 if cross else 0)
            extra = 0
            if rng.random() < 0.07:
                extra += rng.randint(1, 3)
            if customs:
                extra += rng.randint(1, 4)
            extra += attempts - 1
            delivered = pickup + datetime.timedelta(days=days + extra - (1 if rng.random() < 0.2 and days > 1 else 0))
            delivered = min(delivered, TODAY - datetime.timedelta(days=1))
            late = extra > 0
            if wrong_addr:
                sentences.append(rng.choice(WRONG_ADDRESS))
            elif missed:
                sentences.append(rng.choice(MISSED))
            if customs:
                sentences.append(rng.choice(CUSTOMS))
            sentences.append(rng.choice(HANDOVER))
        elif status == "in_transit":
            attempts = 0
            if customs:
                sentences.append(rng.choice(CUSTOMS))
            else:
                sentences.append(rng.choice(TRANSIT))
        elif status == "out_for_delivery":
            attempts = rng.choice([0, 0, 1])
            if attempts:
                sentences.append(rng.choice(MISSED))
            sentences.append(rng.choice(OUT_FOR))
        elif status == "returned":
            s = rng.choice(RETURNED)
            attempts = 3 if s.startswith("Three") else 1
            sentences.append(s)
        else:  # lost
            attempts = 0
            sentences.append(rng.choice(LOST))
        if fragile:
            sentences.append(rng.choice(FRAGILE))
        if damaged and status != "lost":
            sentences.append(rng.choice(DAMAGED))
        if len(sentences) < 3:
            e = rng.choice(EXTRA)
            if e and not (e.startswith("Heavy") and weight < 20):
                sentences.append(e)

        rec = {
            "trackingCode": code,
            "service_level": service,
            "originCountry": origin,
            "destination_city": dest_city,
            "destinationCountry": dest,
            "sender_company": sender,
            "driverFirstName": driver[0],
            "driverLastName": driver[1],
            "weight_kg": weight,
            "declaredValueEur": declared,
            "shipping_cost": cost,
            "isInsured": insured,
            "status": status,
            "pickup_date": pickup.isoformat(),
        }
        if delivered is not None:
            rec["deliveredDate"] = delivered.isoformat()
            rec["delivered_late"] = late
        rec["delivery_attempts"] = attempts
        rec["notes"] = " ".join(sentences)
        records.append(rec)

    records.sort(key=lambda r: (r["pickup_date"], r["trackingCode"]))
    with open(OUT, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
