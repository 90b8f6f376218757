#!/usr/bin/env python3
"""Generate fitness_classes.jsonl: bookings of group fitness classes at the twelve studios of a gym
chain in NL, DE, BE, ES and SE, classes held 2024-2025.

Each record is one booking: the member (first and last name in two fields), the membership tier,
the studio with its city and country code, the class type, the instructor (full name in one
field), the booked and class dates, the duration, the price paid in EUR, four flags, a 1-5 rating
and a free-text feedback sentence.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `membership_tier` on a guest-pass booking (guests have
no membership), `rating` on a booking that was not attended (and on some attended ones the member
did not rate), `feedback` where the member wrote none.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251219)

# studio name -> (city, country code, weight, country price factor)
STUDIOS = {
    "Amsterdam Oost": ("Amsterdam", "NL", 34, 1.00),
    "Utrecht Centrum": ("Utrecht", "NL", 24, 1.00),
    "Rotterdam Kralingen": ("Rotterdam", "NL", 22, 1.00),
    "Berlin Mitte": ("Berlin", "DE", 32, 0.95),
    "Berlin Kreuzberg": ("Berlin", "DE", 26, 0.95),
    "Hamburg Altona": ("Hamburg", "DE", 26, 0.95),
    "Ghent Zuid": ("Ghent", "BE", 22, 0.95),
    "Antwerp Zurenborg": ("Antwerp", "BE", 22, 0.95),
    "Madrid Chamberí": ("Madrid", "ES", 30, 0.80),
    "Barcelona Gràcia": ("Barcelona", "ES", 28, 0.80),
    "Stockholm Södermalm": ("Stockholm", "SE", 30, 1.20),
    "Gothenburg Haga": ("Gothenburg", "SE", 20, 1.20),
}

# class type -> (weight, possible durations in minutes, base drop-in price EUR)
CLASS_TYPES = {
    "yoga": (26, [60, 60, 75, 90], 14.0),
    "spinning": (24, [45, 45, 60], 13.0),
    "HIIT": (18, [30, 45, 45], 12.0),
    "pilates": (16, [45, 55, 55], 15.0),
    "boxing": (12, [60, 60, 75], 16.0),
    "zumba": (10, [45, 60], 10.0),
    "barre": (8, [50, 50, 60], 15.0),
}

# instructors per studio: full name -> class types taught. Two instructors teach at both Berlin
# studios; some class types are not offered everywhere.
INSTRUCTORS = {
    "Amsterdam Oost": {"Sanne Verhoeven": ["yoga", "pilates"], "Thijs de Graaf": ["spinning", "HIIT"],
                       "Naima Bouzid": ["boxing", "HIIT"], "Eva Kuiper": ["barre", "zumba"]},
    "Utrecht Centrum": {"Joost Hendriks": ["spinning", "HIIT"], "Lieke Vos": ["yoga", "pilates", "barre"]},
    "Rotterdam Kralingen": {"Kevin Martina": ["boxing", "HIIT"], "Iris Brouwer": ["yoga", "zumba"],
                            "Bram Dekker": ["spinning"]},
    "Berlin Mitte": {"Jonas Richter": ["spinning", "HIIT"], "Miriam Hoffmann": ["yoga", "pilates"],
                     "Deniz Aksoy": ["boxing"], "Clara Neumann": ["barre", "pilates"]},
    "Berlin Kreuzberg": {"Jonas Richter": ["spinning"], "Deniz Aksoy": ["boxing", "HIIT"],
                         "Paula Zimmermann": ["yoga", "zumba"]},
    "Hamburg Altona": {"Ole Petersen": ["spinning", "HIIT"], "Hannah Lorenz": ["yoga", "pilates"],
                       "Malte Jensen": ["boxing"]},
    "Ghent Zuid": {"Lotte Claes": ["yoga", "pilates"], "Arne De Smet": ["spinning", "boxing", "HIIT"]},
    "Antwerp Zurenborg": {"Elke Wouters": ["yoga", "barre"], "Jens Goossens": ["spinning", "HIIT"],
                          "Sofie Lambrechts": ["zumba", "pilates"]},
    "Madrid Chamberí": {"Lucía Fernández": ["yoga", "pilates"], "Álvaro Ruiz": ["spinning", "HIIT"],
                        "Marta Navarro": ["zumba", "barre"], "Diego Castro": ["boxing"]},
    "Barcelona Gràcia": {"Núria Puig": ["yoga", "pilates"], "Pau Serra": ["spinning", "boxing"],
                         "Carla Vidal": ["zumba", "HIIT"]},
    "Stockholm Södermalm": {"Elin Lindqvist": ["yoga", "pilates", "barre"], "Oskar Berg": ["spinning", "HIIT"],
                            "Amir Haddad": ["boxing", "HIIT"]},
    "Gothenburg Haga": {"Maja Nyström": ["yoga", "zumba"], "Viktor Holm": ["spinning", "HIIT", "boxing"]},
}

FIRST = {
    "NL": ["Emma", "Daan", "Julia", "Lars", "Fleur", "Sem", "Noor", "Tim", "Anouk", "Ruben", "Sara", "Milan"],
    "DE": ["Lena", "Felix", "Mia", "Paul", "Laura", "Max", "Sophie", "Leon", "Anna", "Niklas", "Sara"],
    "BE": ["Louise", "Arthur", "Marie", "Lucas", "Elise", "Victor", "Hanne", "Thomas", "Emma"],
    "ES": ["Lucía", "Javier", "Carmen", "Pablo", "Elena", "Sergio", "Laura", "Marc", "Anna"],
    "SE": ["Alva", "Erik", "Saga", "Hugo", "Ebba", "Axel", "Wilma", "Linnea", "Emma"],
}
LAST = {
    "NL": ["de Jong", "Jansen", "Visser", "Smit", "Meijer", "de Boer", "Mulder", "Bos", "Peters", "Hendriks"],
    "DE": ["Müller", "Schmidt", "Schneider", "Fischer", "Wagner", "Becker", "Schulz", "Koch", "Klein"],
    "BE": ["Peeters", "Janssens", "Maes", "Jacobs", "Mertens", "Willems", "Claes", "Dubois"],
    "ES": ["García", "Martínez", "López", "Sánchez", "Romero", "Torres", "Ortiz", "Gil"],
    "SE": ["Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson"],
}
TIERS = {"basic": 40, "plus": 36, "premium": 24}
TIER_FACTOR = {"basic": 1.0, "plus": 0.75, "premium": 0.5}

START = date(2024, 1, 8)
END = date(2025, 12, 14)
N = 352

# feedback sentences: (text, sentiment) ; sentiment -1 negative, 0 neutral, +1 positive
GENERAL_POS = [
    "Great class, I will be back next week.",
    "Tough workout but I loved it.",
    "Really good session, exactly what I needed.",
]
GENERAL_NEG = [
    "Not my kind of class, too chaotic.",
    "The class started late and felt rushed.",
]
THEMES = {
    "music_pos": ("Loved the music, it kept me going.", 1),
    "music_neg": ("The music was far too loud.", -1),
    "energy_pos": ("The instructor had amazing energy.", 1),
    "crowded": ("The room was crowded and I had no space.", -1),
    "showers": ("The showers were cold afterwards.", -1),
    "aircon": ("The air conditioning was broken and it got very hot.", -1),
    "mats": ("Some of the mats were worn out.", -1),
    "bikes": ("My bike had a squeaky pedal.", -1),
    "gloves": ("The boxing gloves they lend out smell bad.", -1),
    "parking": ("Hard to find parking near the studio.", -1),
    "beginner": ("Good explanations for beginners.", 1),
}

# member pool: each member has a home studio and a tier; a share of them joined in the period and
# their first booking at the home studio is a first visit
members = []
used_names = set()
studio_names = list(STUDIOS)
for studio in studio_names:
    country = STUDIOS[studio][1]
    n_members = max(5, STUDIOS[studio][2] // 3)
    for _ in range(n_members):
        while True:
            fn, ln = rng.choice(FIRST[country]), rng.choice(LAST[country])
            if (fn, ln) not in used_names:
                used_names.add((fn, ln))
                break
        tier = rng.choices(list(TIERS), weights=list(TIERS.values()))[0]
        new = rng.random() < 0.45
        activity = rng.choice([1, 1, 2, 2, 3, 5])
        members.append({"first": fn, "last": ln, "home": studio, "tier": tier, "new": new,
                        "activity": activity})

# guests: one-off visitors on a guest pass, no membership tier
GUEST_NAMES = {c: [] for c in FIRST}
for c in FIRST:
    for _ in range(6):
        while True:
            fn, ln = rng.choice(FIRST[c]), rng.choice(LAST[c])
            if (fn, ln) not in used_names:
                used_names.add((fn, ln))
                break
        GUEST_NAMES[c].append((fn, ln))

days = [START + timedelta(days=d) for d in range((END - START).days + 1)]
class_days = sorted(rng.choice(days) for _ in range(N))
seen_member_studio = set()
counters = {2024: 0, 2025: 0}
records = []
for class_day in class_days:
    guest = rng.random() < 0.07
    if guest:
        studio = rng.choices(studio_names, weights=[s[2] for s in STUDIOS.values()])[0]
        city, country, _w, cfac = STUDIOS[studio]
        first, last = rng.choice(GUEST_NAMES[country])
        tier = None
    else:
        m = rng.choices(members, weights=[mm["activity"] for mm in members])[0]
        if rng.random() < 0.88:
            studio = m["home"]
        else:
            same_country = [s for s in studio_names if STUDIOS[s][1] == STUDIOS[m["home"]][1]]
            studio = rng.choice(same_country)
        city, country, _w, cfac = STUDIOS[studio]
        first, last, tier = m["first"], m["last"], m["tier"]

    offered = sorted({t for types in INSTRUCTORS[studio].values() for t in types})
    ctype = rng.choices(offered, weights=[CLASS_TYPES[t][0] for t in offered])[0]
    instructor = rng.choice([i for i, types in INSTRUCTORS[studio].items() if ctype in types])
    duration = rng.choice(CLASS_TYPES[ctype][1])

    lead = rng.choices([0, 1, 2, 3, 5, 7, 10, 14], weights=[14, 22, 18, 14, 12, 10, 6, 4])[0]
    booked = class_day - timedelta(days=lead)

    base = CLASS_TYPES[ctype][2] * (duration / 60) ** 0.5 * cfac
    if guest:
        price = 0.0
    else:
        price = round(base * TIER_FACTOR[tier] * 2) / 2  # to the half euro
        if rng.random() < 0.05:
            price = 0.0  # free class from a promotion

    if guest:
        first_visit = True
    else:
        key = (first, last, studio)
        first_visit = m["new"] and studio == m["home"] and key not in seen_member_studio
        seen_member_studio.add(key)

    cancelled = rng.random() < (0.10 if lead <= 1 else 0.17)
    attended = (not cancelled) and rng.random() < (0.93 if guest or first_visit else 0.86)

    rating = None
    feedback = None
    if attended:
        themes = []
        if ctype in ("spinning", "zumba", "HIIT", "boxing") and rng.random() < 0.22:
            themes.append(rng.choice(["music_pos", "music_pos", "music_neg"]))
        if rng.random() < 0.10:
            themes.append("energy_pos")
        if rng.random() < 0.07:
            themes.append("crowded")
        if studio in ("Berlin Kreuzberg", "Rotterdam Kralingen", "Madrid Chamberí") and rng.random() < 0.18:
            themes.append("showers")
        if country == "ES" and rng.random() < 0.12 or class_day.month in (7, 8) and rng.random() < 0.15:
            themes.append("aircon")
        if ctype in ("yoga", "pilates") and rng.random() < 0.10:
            themes.append("mats")
        if ctype == "spinning" and rng.random() < 0.12:
            themes.append("bikes")
        if ctype == "boxing" and rng.random() < 0.15:
            themes.append("gloves")
        if city in ("Amsterdam", "Hamburg") and rng.random() < 0.10:
            themes.append("parking")
        if first_visit and rng.random() < 0.35:
            themes.append("beginner")
        rng.shuffle(themes)
        themes = themes[:2]
        sentiment = sum(THEMES[t][1] for t in themes)
        sentences = [THEMES[t][0] for t in themes]
        if not sentences and rng.random() < 0.35:
            if rng.random() < 0.8:
                sentences.append(rng.choice(GENERAL_POS))
                sentiment = 1
            else:
                sentences.append(rng.choice(GENERAL_NEG))
                sentiment = -1
        if sentences:
            feedback = " ".join(sentences)
        if rng.random() < 0.85 or feedback:
            mean = 4.0 + 0.8 * sentiment
            rating = max(1, min(5, round(rng.gauss(mean, 0.8))))

    year = class_day.year
    counters[year] += rng.randint(1, 4)
    rec = {
        "booking_id": f"FC-{year}-{counters[year]:04d}",
        "member_first_name": first,
        "memberLastName": last,
    }
    if tier is not None:
        rec["membership_tier"] = tier
    rec.update({
        "studio_name": studio,
        "studio_city": city,
        "countryCode": country,
        "class_type": ctype,
        "instructor": instructor,
        "booked_date": booked.isoformat(),
        "classDate": class_day.isoformat(),
        "duration_min": duration,
        "price_eur": price,
        "attended": attended,
        "wasCancelled": cancelled,
        "is_first_visit": 1 if first_visit else 0,
        "used_guest_pass": guest,
    })
    if rating is not None:
        rec["rating"] = rating
    if feedback is not None:
        rec["feedback"] = feedback
    records.append(rec)

with open(os.path.join(HERE, "fitness_classes.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
