#!/usr/bin/env python3
"""Write flights.jsonl: one record per flight operated by five European airlines, Jan-Jun 2025.

Seeded and standard-library only, so every run writes the same file. A field that does not apply
to a flight is left out: a flight that left on time has no `delay_cause`, a cancelled flight has
no `delayMinutes`, `passengers`, `fuel_burned_kg` or `diverted_to`, and only a diverted flight has
`diverted_to`.

    python3 bench/structured/es/gen_flights.py
"""
import datetime
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "flights.jsonl")
N = 400

# IATA code -> (country, latitude, longitude)
AIRPORTS = {
    "AMS": ("NL", 52.31, 4.76), "FRA": ("DE", 50.03, 8.57), "MUC": ("DE", 48.35, 11.79),
    "CDG": ("FR", 49.01, 2.55), "MAD": ("ES", 40.47, -3.56), "CPH": ("DK", 55.62, 12.65),
    "ARN": ("SE", 59.65, 17.92), "OSL": ("NO", 60.19, 11.10), "LHR": ("GB", 51.47, -0.45),
    "FCO": ("IT", 41.80, 12.25), "MXP": ("IT", 45.63, 8.72), "LIS": ("PT", 38.77, -9.13),
    "ATH": ("GR", 37.94, 23.94), "VIE": ("AT", 48.11, 16.57), "ZRH": ("CH", 47.46, 8.55),
    "DUB": ("IE", 53.42, -6.27), "PRG": ("CZ", 50.10, 14.26), "WAW": ("PL", 52.17, 20.97),
    "HEL": ("FI", 60.32, 24.96), "BRU": ("BE", 50.90, 4.48), "NCE": ("FR", 43.66, 7.22),
    "BCN": ("ES", 41.30, 2.08), "AGP": ("ES", 36.67, -4.50), "PMI": ("ES", 39.55, 2.74),
    "BUD": ("HU", 47.44, 19.26),
}

AIRLINES = {
    "KLM": {"code": "KL", "hubs": ["AMS"], "fleet": ["B737-800", "E190"],
            "dests": ["LHR", "CDG", "BCN", "FCO", "LIS", "CPH", "PRG", "DUB", "MAD", "ATH"]},
    "Lufthansa": {"code": "LH", "hubs": ["FRA", "MUC"], "fleet": ["A320", "A321neo", "CRJ900"],
                  "dests": ["LHR", "CDG", "VIE", "ZRH", "WAW", "BUD", "FCO", "MAD", "HEL", "PMI"]},
    "Air France": {"code": "AF", "hubs": ["CDG"], "fleet": ["A319", "A320", "A220-300"],
                   "dests": ["NCE", "AMS", "FRA", "MXP", "LIS", "BCN", "ATH", "DUB", "BRU"]},
    "Iberia": {"code": "IB", "hubs": ["MAD"], "fleet": ["A320", "A321neo"],
               "dests": ["BCN", "AGP", "PMI", "LIS", "CDG", "LHR", "FCO", "BRU"]},
    "SAS": {"code": "SK", "hubs": ["CPH", "ARN", "OSL"], "fleet": ["A320", "CRJ900"],
            "dests": ["HEL", "AMS", "LHR", "FRA", "AGP", "WAW", "DUB"]},
}
AIRLINE_WEIGHTS = {"KLM": 95, "Lufthansa": 95, "Air France": 80, "Iberia": 65, "SAS": 65}

SEATS = {"B737-800": [186, 189], "E190": [100], "A319": [143], "A320": [174, 180],
         "A321neo": [215], "CRJ900": [90], "A220-300": [148]}
BURN_KG_PER_KM = {"B737-800": 3.1, "E190": 2.0, "A319": 2.7, "A320": 2.9, "A321neo": 3.0,
                  "CRJ900": 1.9, "A220-300": 2.3}

CAPTAINS = {
    "KLM": [("Jan", "de Vries"), ("Pieter", "de Vries"), ("Jan", "Bakker"), ("Sanne", "Visser"),
            ("Maarten", "Jansen"), ("Eva", "Mulder"), ("Ruben", "Smit"), ("Lotte", "Meijer")],
    "Lufthansa": [("Thomas", "Becker"), ("Katrin", "Wolf"), ("Jonas", "Schulz"),
                  ("Anna", "Hoffmann"), ("Markus", "Richter"), ("Thomas", "Krause"),
                  ("Lena", "Becker"), ("Stefan", "Braun")],
    "Air France": [("Julien", "Moreau"), ("Claire", "Dubois"), ("Nicolas", "Laurent"),
                   ("Camille", "Girard"), ("Antoine", "Moreau"), ("Sophie", "Lefebvre")],
    "Iberia": [("Carlos", "Navarro"), ("Lucia", "Romero"), ("Javier", "Ortega"),
               ("Marta", "Navarro"), ("Pablo", "Serrano")],
    "SAS": [("Anna", "Lindqvist"), ("Erik", "Johansson"), ("Ingrid", "Berg"),
            ("Lars", "Nilsen"), ("Mette", "Hansen"), ("Erik", "Berg")],
}

START = datetime.date(2025, 1, 1)
DAYS = (datetime.date(2025, 6, 30) - START).days + 1

ON_TIME_REMARKS = [
    "Routine flight with no irregularities.",
    "Departed on schedule and arrived a few minutes early.",
    "Smooth turnaround; boarding completed ahead of time.",
    "No irregularities reported by the crew.",
    "Catering was loaded late but the flight still left on time.",
    "Full cabin; boarding went smoothly and the doors closed on time.",
]

# cause -> list of (remark, season) ; season None = any month, "winter" = Jan-Mar, "summer" = May-Jun
DELAY_REMARKS = {
    "weather": [
        ("Aircraft needed de-icing before departure, queue at the de-icing pad.", "winter"),
        ("Heavy snow at the origin airport; runway closed for clearing.", "winter"),
        ("De-icing of the wings took longer than planned in freezing fog.", "winter"),
        ("Dense fog at the destination reduced the arrival rate.", None),
        ("A thunderstorm over the destination held all departures on the ground.", "summer"),
        ("Strong crosswinds at the destination; departure held by the tower.", None),
    ],
    "technical": [
        ("A hydraulic warning light needed checking by engineers before pushback.", None),
        ("Engineers replaced a faulty sensor on the left engine.", None),
        ("A small fuel leak was found during the walkaround and repaired.", None),
        ("The inbound sector reported a bird strike, so the aircraft was inspected.", None),
        ("The auxiliary power unit failed and a ground power unit was required.", None),
    ],
    "crew": [
        ("A crew change was needed because the original crew ran out of duty hours.", None),
        ("Late arrival of the cabin crew from the hotel.", None),
        ("A sick crew member had to be replaced by standby crew.", None),
    ],
    "late inbound": [
        ("Late inbound aircraft from the previous rotation.", None),
        ("The previous sector was delayed, so the inbound aircraft arrived late.", None),
    ],
    "air traffic control": [
        ("Slot restriction imposed by air traffic control due to congestion.", None),
        ("Air traffic control strike in France reduced the available slots.", None),
        ("Airspace congestion; departure slot pushed back by the network manager.", None),
    ],
    "passenger": [
        ("A passenger did not board, so the baggage was offloaded and the hold reloaded.", None),
        ("Baggage reloaded after a loading error in the hold.", None),
        ("An unruly passenger was removed from the aircraft before departure.", None),
        ("Boarding was slow because of a wheelchair assistance delay.", None),
    ],
}
CAUSE_WEIGHTS = {"weather": 16, "technical": 14, "crew": 10, "late inbound": 26,
                 "air traffic control": 20, "passenger": 14}

DIVERSION_REMARKS = [
    "Diverted to {alt} after a medical emergency on board; the passenger was taken to hospital.",
    "Diverted to {alt} because of a bird strike on climb-out; engine inspected on the ground.",
    "Diverted to {alt} because fog at the destination fell below landing minimums.",
    "Diverted to {alt} after a smoke warning in the cabin.",
]
CANCEL_REMARKS = {
    "weather": ["Flight cancelled because of a snowstorm at the destination.",
                "Flight cancelled; the destination airport closed in dense fog."],
    "technical": ["Flight cancelled; the aircraft was grounded with a technical fault and no spare aircraft was available."],
    "crew": ["Flight cancelled because no replacement crew was available after a crew change was refused."],
    "air traffic control": ["Flight cancelled during an air traffic control strike."],
}


def distance_km(a, b):
    _, la1, lo1 = AIRPORTS[a]
    _, la2, lo2 = AIRPORTS[b]
    p1, p2 = math.radians(la1), math.radians(la2)
    dp, dl = p2 - p1, math.radians(lo2 - lo1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


def pick_weighted(rng, weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def build_routes():
    """Fixed route per flight number: outbound from a hub gets an odd number, the return an even one."""
    routes = {}
    for airline, info in AIRLINES.items():
        rng = random.Random(f"routes-{airline}")
        base = 1000 + rng.randrange(1, 9) * 100 + 1
        out = []
        for i, dest in enumerate(info["dests"]):
            hub = info["hubs"][i % len(info["hubs"])]
            num = base + i * 12 + rng.randrange(0, 5) * 2
            ac = info["fleet"][rng.randrange(len(info["fleet"]))]
            out.append((f"{info['code']}{num}", hub, dest, ac))
            out.append((f"{info['code']}{num + 1}", dest, hub, ac))
        routes[airline] = out
    return routes


def main():
    rng = random.Random(20250611)
    routes = build_routes()
    records = []
    for _ in range(N):
        airline = pick_weighted(rng, AIRLINE_WEIGHTS)
        flight_no, origin, dest, aircraft = rng.choice(routes[airline])
        date = START + datetime.timedelta(days=rng.randrange(DAYS))
        month = date.month
        seats = rng.choice(SEATS[aircraft])
        first, last = rng.choice(CAPTAINS[airline])

        cancelled = rng.random() < 0.06
        diverted = (not cancelled) and rng.random() < 0.035

        rec = {
            "flightNumber": flight_no,
            "airline": airline,
            "origin": origin,
            "destination": dest,
            "dest_country": AIRPORTS[dest][0],
            "aircraftType": aircraft,
            "departure_date": date.isoformat(),
        }
        if cancelled:
            cause = rng.choice(sorted(CANCEL_REMARKS))
            remark = rng.choice(CANCEL_REMARKS[cause])
            rec["delay_cause"] = cause
            rec["isCancelled"] = True
            rec["was_diverted"] = False
            rec["seats"] = seats
        else:
            if rng.random() < 0.52:
                delay, cause = 0, None
            else:
                cause = pick_weighted(rng, CAUSE_WEIGHTS)
                r = rng.random()
                if r < 0.45:
                    delay = rng.randrange(5, 31)
                elif r < 0.8:
                    delay = rng.randrange(31, 91)
                elif r < 0.95:
                    delay = rng.randrange(91, 181)
                else:
                    delay = rng.randrange(181, 301)
            rec["delayMinutes"] = delay
            if cause:
                rec["delay_cause"] = cause
            rec["isCancelled"] = False
            rec["was_diverted"] = diverted
            if diverted:
                alts = [a for a, v in AIRPORTS.items()
                        if a not in (origin, dest) and distance_km(dest, a) < 700]
                alt = rng.choice(sorted(alts))
                rec["diverted_to"] = alt
            load = rng.uniform(0.55, 1.0) if month not in (1, 2) else rng.uniform(0.45, 0.92)
            pax = min(seats, int(round(seats * load)))
            rec["passengers"] = pax
            rec["seats"] = seats
            leg_to = rec.get("diverted_to", dest)
            dist = distance_km(origin, dest) if not diverted else distance_km(origin, dest) * 0.8 + distance_km(dest, leg_to)
            fuel = BURN_KG_PER_KM[aircraft] * dist * rng.uniform(0.92, 1.1) + 350 + delay * 4
            rec["fuel_burned_kg"] = int(round(fuel))
            if diverted:
                remark = rng.choice(DIVERSION_REMARKS).format(alt=alt)
            elif cause:
                season = "winter" if month <= 3 else ("summer" if month >= 5 else "spring")
                options = [t for t, s in DELAY_REMARKS[cause] if s is None or s == season]
                remark = rng.choice(options)
            else:
                remark = rng.choice(ON_TIME_REMARKS)
        rec["captain_first_name"] = first
        rec["captainLastName"] = last
        rec["remarks"] = remark
        records.append(rec)

    records.sort(key=lambda r: (r["departure_date"], r["flightNumber"]))
    with open(OUT, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
