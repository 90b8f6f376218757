#!/usr/bin/env python3
"""Generate bikeshare.jsonl: trips of a city bike-share scheme in NL, BE, DE, DK and AT, Mar-Aug 2025.

Seeded and standard-library only, so the output is identical on every run. Fields that do not
apply (complaint on a trip without one) are left out, never written as null.
"""
import json
import os
import random
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20250812)

CITIES = {
    "Amsterdam": ("NL", ["Centraal Station", "Museumplein", "Westerpark", "Amstel Station", "Oosterdok"]),
    "Utrecht": ("NL", ["Neude", "Utrecht Centraal", "Wilhelminapark", "Science Park"]),
    "Antwerp": ("BE", ["Groenplaats", "Antwerpen-Centraal", "Het Eilandje", "Zuid"]),
    "Ghent": ("BE", ["Korenmarkt", "Gent-Sint-Pieters", "Citadelpark", "Dampoort"]),
    "Berlin": ("DE", ["Alexanderplatz", "Warschauer Strasse", "Tempelhofer Feld", "Hauptbahnhof", "Mauerpark"]),
    "Munich": ("DE", ["Marienplatz", "Englischer Garten", "Sendlinger Tor", "Olympiapark"]),
    "Copenhagen": ("DK", ["Norreport", "Nyhavn", "Christianshavn", "Fælledparken", "Islands Brygge"]),
    "Vienna": ("AT", ["Stephansplatz", "Praterstern", "Karlsplatz", "Westbahnhof"]),
}
CITY_WEIGHTS = {"Amsterdam": 60, "Utrecht": 35, "Antwerp": 40, "Ghent": 30, "Berlin": 55,
                "Munich": 40, "Copenhagen": 50, "Vienna": 40}

FIRST = ["Anna", "Lars", "Sophie", "Jonas", "Emma", "Lukas", "Fleur", "Mads", "Ines", "Pieter",
         "Freya", "Tobias", "Lotte", "Stefan", "Noor", "Felix", "Clara", "Bram", "Ida", "Maximilian",
         "Julie", "Sven", "Hanna", "Wout", "Marie", "Niels", "Lena", "Thijs", "Astrid", "Elias"]
LAST = ["de Vries", "Jansen", "Peeters", "Maes", "Müller", "Schmidt", "Nielsen", "Jensen",
        "Gruber", "Huber", "Bakker", "Claes", "Wagner", "Hansen", "Bauer", "Visser", "Janssens",
        "Fischer", "Larsen", "Steiner", "Mulder", "Willems", "Becker", "Pedersen", "Hofer"]

BIKE_TYPES = ["classic", "e-bike", "cargo"]
BIKE_WEIGHTS = [55, 35, 10]
SPEED = {"classic": 14.0, "e-bike": 19.0, "cargo": 11.0}          # km/h
UNLOCK = {"classic": 1.00, "e-bike": 1.00, "cargo": 2.00}
PER_MIN = {"classic": 0.10, "e-bike": 0.25, "cargo": 0.30}
PAYMENT = ["card", "app_wallet", "day_pass"]

COMPLAINTS = [
    "Brakes squeaked loudly the whole way",
    "Front brakes felt weak on the hill",
    "Chain slipped twice during the ride",
    "Flat tyre halfway to the destination",
    "Rear flat tyre, had to walk the last part",
    "Saddle kept sliding down",
    "Saddle was torn and wet",
    "Station dock did not register the return",
    "Charged twice for one trip",
    "Lights were not working after dark",
    "Bell was missing",
    "Gears jumped when pedalling uphill",
    "Basket was bent and rattled",
    "Handlebar felt loose",
    "Dock at the end station was full, had to ride on",
]

# each rider rents several times, so names repeat
RIDERS = []
seen = set()
while len(RIDERS) < 90:
    f, l = rng.choice(FIRST), rng.choice(LAST)
    if (f, l) not in seen:
        seen.add((f, l))
        RIDERS.append((f, l, rng.random() < 0.55))

START = datetime(2025, 3, 1)
END = datetime(2025, 8, 31, 23, 59)
N = 350
bike_ids = {}
records = []
used_ids = set()
for i in range(N):
    city = rng.choices(list(CITY_WEIGHTS), weights=list(CITY_WEIGHTS.values()))[0]
    country, stations = CITIES[city]
    bike_type = rng.choices(BIKE_TYPES, weights=BIKE_WEIGHTS)[0]
    day = START + timedelta(days=rng.randrange((END - START).days + 1))
    hour = rng.choices(range(6, 23), weights=[2, 6, 9, 7, 4, 4, 5, 5, 4, 5, 7, 9, 7, 5, 4, 3, 2])[0]
    started = day.replace(hour=hour, minute=rng.randrange(60), second=rng.randrange(60))
    round_trip = rng.random() < 0.14
    start_st = rng.choice(stations)
    end_st = start_st if round_trip else rng.choice([s for s in stations if s != start_st])
    duration = max(3, int(rng.gauss(24 if round_trip else 17, 9)))
    if rng.random() < 0.05:
        duration += rng.randint(40, 140)
    distance = round(max(0.4, duration / 60 * SPEED[bike_type] * rng.uniform(0.55, 1.05)), 2)
    first, last, member = rng.choice(RIDERS)
    late = duration > 60 or rng.random() < 0.06
    fare = UNLOCK[bike_type] + PER_MIN[bike_type] * duration
    if member:
        fare = max(0.0, fare - 1.50 - (0.05 * duration if bike_type == "classic" else 0))
    if late:
        fare += 5.00
    fare = round(fare, 2)
    bike = f"{country}-{rng.randint(1000, 9999)}"
    rec = {
        "trip_id": f"TR-{25000 + i * 7 + rng.randint(0, 6)}",
        "bikeId": bike,
        "bike_type": bike_type,
        "startStation": start_st,
        "end_station": end_st,
        "city": city,
        "country": country,
        "started_at": started.strftime("%Y-%m-%dT%H:%M:%S"),
        "trip_date": started.strftime("%Y-%m-%d"),
        "duration_min": duration,
        "distanceKm": distance,
        "fare_eur": fare,
        "rider_first_name": first,
        "riderLastName": last,
        "is_member": member,
        "was_late_return": late,
        "helmetRented": rng.random() < (0.35 if bike_type != "classic" else 0.15),
        "is_round_trip": round_trip,
        "paymentMethod": "day_pass" if rng.random() < 0.12 else rng.choice(PAYMENT[:2]),
    }
    if rng.random() < 0.17:
        rec["complaint"] = rng.choice(COMPLAINTS)
    records.append(rec)

records.sort(key=lambda r: r["started_at"])
with open(os.path.join(HERE, "bikeshare.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
