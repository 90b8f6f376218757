#!/usr/bin/env python3
"""Write charging.jsonl: EV charging sessions at the public stations of a charging network in
NL, BE, DE, FR and DK, January to June 2025.

Seeded and standard library only, so the output is the same on every run. A field that does not
apply to a record is left out (for example `interruption_reason` on a session that was not
interrupted, `idleFeeEur` when the car left in time, `note` when nobody wrote a comment).
"""
import json
import os
import random
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20250712)

N = 360

# city, country, station prefix
CITIES = [
    ("Amsterdam", "NL", "AMS"), ("Utrecht", "NL", "UTR"), ("Rotterdam", "NL", "RTM"), ("Eindhoven", "NL", "EIN"),
    ("Brussels", "BE", "BRU"), ("Antwerp", "BE", "ANR"), ("Ghent", "BE", "GNT"),
    ("Berlin", "DE", "BER"), ("Hamburg", "DE", "HAM"), ("Cologne", "DE", "CGN"), ("Munich", "DE", "MUC"),
    ("Paris", "FR", "PAR"), ("Lyon", "FR", "LYS"), ("Lille", "FR", "LIL"),
    ("Copenhagen", "DK", "CPH"), ("Aarhus", "DK", "AAR"), ("Odense", "DK", "ODE"),
]

# Operators run the stations of the network; each has a base price per kWh for AC and DC.
OPERATORS = {
    "VoltHub": {"ac": 0.39, "dc": 0.59},
    "Ampere Road": {"ac": 0.42, "dc": 0.69},
    "NordCharge": {"ac": 0.36, "dc": 0.55},
    "GreenPlug Energy": {"ac": 0.45, "dc": 0.74},
    "Lumen Mobility": {"ac": 0.40, "dc": 0.65},
}
COUNTRY_OPERATORS = {
    "NL": ["VoltHub", "GreenPlug Energy", "Lumen Mobility"],
    "BE": ["VoltHub", "Ampere Road", "Lumen Mobility"],
    "DE": ["Ampere Road", "GreenPlug Energy", "NordCharge"],
    "FR": ["Ampere Road", "Lumen Mobility", "GreenPlug Energy"],
    "DK": ["NordCharge", "VoltHub"],
}
COUNTRY_PRICE = {"NL": 1.00, "BE": 1.03, "DE": 1.08, "FR": 0.95, "DK": 0.92}

# Station kinds: (power_kw, connectors)
KINDS = [
    ("ac", 11, ["Type2"]),
    ("ac", 22, ["Type2"]),
    ("dc", 50, ["CCS", "CHAdeMO"]),
    ("dc", 150, ["CCS"]),
    ("dc", 150, ["CCS", "CHAdeMO"]),
    ("dc", 300, ["CCS"]),
]

STATIONS = []
for city, country, pre in CITIES:
    n = 2 if country in ("NL", "DE") else rng.choice([1, 2])
    nums = rng.sample(range(1, 60), n)
    for num in sorted(nums):
        kind = rng.choice(KINDS)
        STATIONS.append({
            "code": f"{country}-{pre}-{num:03d}",
            "city": city,
            "country": country,
            "operator": rng.choice(COUNTRY_OPERATORS[country]),
            "current": kind[0],
            "power": kind[1],
            "connectors": kind[2],
        })

# Vehicles: make/model text, max DC charge rate (kW), CHAdeMO inlet, usable battery (kWh)
VEHICLES = [
    ("Tesla Model 3", 170, False, 57), ("Tesla Model Y", 170, False, 75), ("Volkswagen ID.3", 120, False, 58),
    ("Volkswagen ID.4", 135, False, 77), ("Hyundai Ioniq 5", 230, False, 74), ("Kia EV6", 230, False, 77),
    ("Renault Zoe", 46, False, 52), ("Renault Megane E-Tech", 130, False, 60), ("Nissan Leaf", 46, True, 39),
    ("Peugeot e-208", 100, False, 48), ("BMW i4", 200, False, 81), ("Polestar 2", 150, False, 75),
    ("Skoda Enyaq", 135, False, 77), ("Mitsubishi Outlander PHEV", 22, True, 20), ("Audi Q4 e-tron", 135, False, 77),
    ("Fiat 500e", 85, False, 42), ("Mercedes-Benz EQA", 100, False, 67), ("Volvo EX30", 150, False, 64),
]

FIRST = {
    "NL": ["Sanne", "Daan", "Lotte", "Bram", "Femke", "Joris", "Eva", "Ruben"],
    "BE": ["Lien", "Wout", "Elise", "Thibault", "Nathalie", "Pieter"],
    "DE": ["Jonas", "Lena", "Matthias", "Katrin", "Felix", "Anja", "Tobias", "Miriam"],
    "FR": ["Camille", "Julien", "Manon", "Antoine", "Claire", "Hugo"],
    "DK": ["Mads", "Freja", "Rasmus", "Ida", "Søren", "Astrid"],
}
LAST = {
    "NL": ["de Vries", "Jansen", "Bakker", "Visser", "Smit", "Mulder", "van Dijk", "Bos"],
    "BE": ["Peeters", "Maes", "Claes", "Dubois", "Wouters", "Lambert"],
    "DE": ["Müller", "Schmidt", "Becker", "Hoffmann", "Wagner", "Krause", "Neumann", "Vogel"],
    "FR": ["Martin", "Bernard", "Lefèvre", "Moreau", "Girard", "Rousseau"],
    "DK": ["Nielsen", "Jensen", "Hansen", "Pedersen", "Larsen", "Kristensen"],
}

# A pool of regular drivers; each mostly charges in the home country.
DRIVERS = []
used = set()
for country, count in [("NL", 14), ("BE", 10), ("DE", 14), ("FR", 10), ("DK", 10)]:
    while count:
        fn, ln = rng.choice(FIRST[country]), rng.choice(LAST[country])
        if (fn, ln) in used:
            continue
        used.add((fn, ln))
        veh = rng.choice(VEHICLES)
        DRIVERS.append({
            "first": fn, "last": ln, "home": country, "vehicle": veh,
            "member": rng.random() < 0.45, "app": rng.random() < 0.6,
            "weight": rng.choice([1, 1, 2, 3, 5]),
        })
        count -= 1

INTERRUPTION_REASONS = [
    "communication error", "vehicle stopped charging", "emergency stop pressed",
    "power outage", "payment authorisation failed", "cable overheated",
]

NOTES_GENERAL = [
    "Queue of three cars waiting when the driver arrived.",
    "Queue at the station, driver waited about twenty minutes.",
    "Display screen hard to read in direct sunlight.",
    "Display screen was frozen, session started via the app.",
    "Parking bay blocked by a petrol car for a while.",
    "Parking bay was blocked by a delivery van.",
    "Driver reported the connector cable was dirty.",
    "Connector holster damaged, reported to maintenance.",
    "Driver asked for a receipt by email.",
    "Driver complained about the price per kWh.",
    "Charging speed lower than advertised.",
    "Charging speed dropped after the first ten minutes.",
    "Lighting at the station is broken, dark in the evening.",
    "Toilets at the nearby service area were closed.",
    "Driver praised the friendly helpdesk.",
    "Card reader did not accept a contactless card.",
    "Session started with an RFID card from a roaming partner.",
]
NOTES_INTERRUPTED = [
    "Charger restarted remotely by the helpdesk.",
    "Charger restarted remotely, driver resumed in a new session.",
    "Driver had to unplug and plug in again.",
    "Error code shown on the display screen, helpdesk called.",
    "Session stopped on its own, driver asked for a refund.",
]
NOTES_WINTER = [
    "Snow on the parking bay, charger hard to reach.",
    "Cold battery, charging speed was low at the start.",
]


def pick_driver():
    # weighted by activity
    total = sum(d["weight"] for d in DRIVERS)
    x = rng.uniform(0, total)
    for d in DRIVERS:
        x -= d["weight"]
        if x <= 0:
            return d
    return DRIVERS[-1]


def pick_station(driver):
    if rng.random() < 0.8:
        pool = [s for s in STATIONS if s["country"] == driver["home"]]
    else:
        pool = STATIONS
    veh_name, veh_rate, chademo, battery = driver["vehicle"]
    ok = []
    for s in pool:
        if s["current"] == "dc" and veh_rate < 30:
            continue  # plug-in hybrid: AC only
        ok.append(s)
    if not ok:
        ok = [s for s in STATIONS if s["current"] == "ac"]
    return rng.choice(ok)


def main():
    start = datetime(2025, 1, 1)
    end = datetime(2025, 6, 30, 23, 59)
    span = int((end - start).total_seconds() // 60)
    records = []
    starts = sorted(start + timedelta(minutes=rng.randrange(span)) for _ in range(N))
    seen_ids = set()
    for i, t in enumerate(starts):
        # shift most sessions into day hours
        if t.hour < 6 and rng.random() < 0.8:
            t = t.replace(hour=rng.randint(7, 21))
        d = pick_driver()
        s = pick_station(d)
        veh_name, veh_rate, chademo, battery = d["vehicle"]
        if s["current"] == "ac":
            connector = "Type2"
        elif "CHAdeMO" in s["connectors"] and chademo:
            connector = "CHAdeMO"
        else:
            connector = "CCS"
        if s["current"] == "ac":
            rate = min(s["power"], 11 if veh_rate > 22 else veh_rate)
            if rng.random() < 0.3:
                rate = min(s["power"], 22 if veh_rate >= 22 else rate)
            duration = rng.randint(45, 420)
            eff_rate = rate * rng.uniform(0.75, 0.95)
        else:
            rate = min(s["power"], veh_rate if connector == "CCS" else 46)
            duration = rng.randint(12, 65)
            eff_rate = rate * rng.uniform(0.45, 0.72)
        energy = eff_rate * duration / 60
        energy = min(energy, battery * rng.uniform(0.45, 0.9))
        interrupted = rng.random() < 0.11
        if interrupted:
            part = rng.uniform(0.1, 0.6)
            duration = max(3, int(duration * part))
            energy = energy * part * rng.uniform(0.3, 0.95)
        energy = round(max(energy, 0.4), 2)
        op = OPERATORS[s["operator"]]
        price = op[s["current"]] * COUNTRY_PRICE[s["country"]]
        if d["member"]:
            price *= 0.85
        cost = round(energy * price + (0.35 if not d["app"] and s["current"] == "dc" else 0), 2)

        sid = f"CS-25-{rng.randint(10000, 99999)}"
        while sid in seen_ids:
            sid = f"CS-25-{rng.randint(10000, 99999)}"
        seen_ids.add(sid)

        rec = {
            "session_id": sid,
            "stationCode": s["code"],
            "station_city": s["city"],
            "country": s["country"],
            "operatorName": s["operator"],
            "connector_type": connector,
            "power_kw": s["power"],
            "energyKwh": energy,
            "duration_min": duration,
            "cost_eur": cost,
            "started_at": t.strftime("%Y-%m-%dT%H:%M:00"),
            "driver_first_name": d["first"],
            "driverLastName": d["last"],
            "vehicleModel": veh_name,
            "is_fast_charger": s["current"] == "dc",
            "was_interrupted": interrupted,
            "paidByApp": d["app"] if rng.random() < 0.9 else not d["app"],
            "is_member": d["member"],
        }
        if interrupted:
            rec["interruption_reason"] = rng.choice(INTERRUPTION_REASONS)
        # idle fee: car left plugged in after charging at a DC station
        if s["current"] == "dc" and not interrupted and rng.random() < 0.12:
            rec["idleFeeEur"] = round(rng.choice([0.25, 0.40]) * rng.randint(5, 40), 2)
        note = None
        if interrupted and rng.random() < 0.6:
            note = rng.choice(NOTES_INTERRUPTED)
        elif t.month in (1, 2) and rng.random() < 0.12:
            note = rng.choice(NOTES_WINTER)
        elif rng.random() < 0.22:
            note = rng.choice(NOTES_GENERAL)
        if note:
            rec["note"] = note
        records.append(rec)

    with open(os.path.join(HERE, "charging.jsonl"), "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
