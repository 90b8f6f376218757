#!/usr/bin/env python3
"""Generate reviews.jsonl: guest reviews of the hotels of a European hotel chain.

Seeded and standard-library only, so every run writes the same file. A field that does not apply
to a review is left out (no `cleanliness_score` when the guest did not rate it, no
`managerResponseDate` when the manager did not respond).
"""
import datetime
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251104)

# name, city, country, stars, base quality, has rooftop bar, has parking, has pool
HOTELS = [
    ("Solenne Lisboa Riverside", "Lisbon", "PT", 4, 7.6, True, False, False),
    ("Solenne Porto Ribeira", "Porto", "PT", 3, 7.0, False, True, False),
    ("Solenne Madrid Gran Via", "Madrid", "ES", 4, 7.2, True, True, False),
    ("Solenne Barcelona Mar", "Barcelona", "ES", 5, 8.1, True, False, True),
    ("Solenne Paris Opera", "Paris", "FR", 4, 6.8, False, False, False),
    ("Solenne Lyon Presqu'ile", "Lyon", "FR", 3, 6.9, False, True, False),
    ("Solenne Roma Trastevere", "Rome", "IT", 4, 7.4, True, False, False),
    ("Solenne Milano Centrale", "Milan", "IT", 3, 6.4, False, True, False),
    ("Solenne Berlin Mitte", "Berlin", "DE", 4, 7.3, True, True, False),
    ("Solenne Munich Isar", "Munich", "DE", 5, 8.0, False, True, True),
    ("Solenne Amsterdam Canal", "Amsterdam", "NL", 4, 7.1, False, False, False),
    ("Solenne Wien Ring", "Vienna", "AT", 5, 8.3, True, True, True),
]
WEIGHTS = [11, 7, 9, 8, 10, 6, 9, 7, 10, 8, 9, 6]

GUESTS = {
    "GB": (["Oliver", "Emily", "Harry", "Charlotte", "James", "Sophie"], ["Hughes", "Turner", "Bennett", "Clarke", "Walsh", "Foster"]),
    "US": (["Michael", "Jennifer", "David", "Ashley", "Ryan", "Megan"], ["Carter", "Brooks", "Sullivan", "Reed", "Hayes", "Porter"]),
    "DE": (["Lukas", "Anna", "Felix", "Lena", "Jonas", "Katrin"], ["Schneider", "Becker", "Hoffmann", "Wagner", "Krause", "Vogel"]),
    "FR": (["Julien", "Camille", "Antoine", "Chloe", "Hugo", "Manon"], ["Lefebvre", "Moreau", "Girard", "Fontaine", "Mercier", "Rousseau"]),
    "NL": (["Daan", "Sanne", "Bram", "Femke", "Ruben", "Lotte"], ["de Vries", "Bakker", "Visser", "Smit", "Mulder", "Jansen"]),
    "IT": (["Marco", "Giulia", "Luca", "Francesca", "Matteo", "Chiara"], ["Bellini", "Ricci", "Conti", "Marino", "Greco", "Lombardi"]),
    "ES": (["Javier", "Lucia", "Pablo", "Marta", "Diego", "Elena"], ["Navarro", "Ortega", "Romero", "Delgado", "Castillo", "Vidal"]),
    "SE": (["Erik", "Astrid", "Nils", "Maja"], ["Lindqvist", "Berg", "Holm", "Nyberg"]),
    "PL": (["Piotr", "Agnieszka", "Tomasz", "Zofia"], ["Nowak", "Kowalczyk", "Wisniewski", "Zielinski"]),
    "JP": (["Haruto", "Yui", "Kenji", "Aiko"], ["Tanaka", "Sato", "Watanabe", "Kobayashi"]),
    "CH": (["Reto", "Nina", "Beat", "Seraina"], ["Keller", "Brunner", "Frei", "Meier"]),
    "BR": (["Thiago", "Beatriz", "Rafael", "Larissa"], ["Almeida", "Barbosa", "Cardoso", "Teixeira"]),
}
NAT_WEIGHTS = {"GB": 16, "US": 13, "DE": 14, "FR": 11, "NL": 9, "IT": 9, "ES": 8, "SE": 5, "PL": 5, "JP": 4, "CH": 4, "BR": 3}

ROOMS = ["standard", "superior", "deluxe", "junior suite", "suite", "family room"]
TRIPS = ["business", "leisure", "couple", "family", "solo"]
TRIP_WEIGHTS = [26, 28, 22, 14, 10]

GOOD = {
    "staff": ["The staff were friendly and helpful from arrival to departure.",
              "Really friendly staff at reception, they remembered our names."],
    "breakfast": ["Great breakfast buffet with plenty of fresh fruit and good coffee.",
                  "The breakfast buffet was excellent and served until eleven."],
    "clean": ["The room was spotless and the bed very comfortable.",
              "Spotless bathroom and crisp linen every day."],
    "location": ["Excellent location, a short walk from the old town and the metro.",
                 "Perfect location for sightseeing on foot."],
    "rooftop": ["Drinks at the rooftop bar at sunset were the highlight of our stay.",
                "The rooftop bar has a wonderful view over the city."],
    "pool": ["The pool and spa were a real bonus after long days out."],
    "quiet": ["Our room was quiet and we slept very well."],
}
BAD = {
    "aircon": ["The air conditioning was noisy and kept us awake.",
               "Noisy air conditioning that could not be turned down."],
    "checkin": ["Check-in was slow and we waited almost an hour for our room.",
                "Very slow check-in at a busy reception desk."],
    "parking": ["The parking fee of 28 euros a night felt excessive.",
                "Expensive parking fee and the garage was hard to find."],
    "wifi": ["The wifi kept dropping, which made working from the room difficult.",
             "Weak wifi signal on our floor."],
    "shower": ["The shower was lukewarm and the water pressure weak."],
    "street": ["Street noise made it hard to sleep with the window open."],
    "elevator": ["The elevator was out of order for two days of our stay."],
    "small": ["The room was much smaller than the photos suggested."],
    "breakfast": ["The breakfast buffet was overpriced for what was on offer."],
}
NEUTRAL = {
    "business": "Good value for a short business trip.",
    "family": "The kids enjoyed the family room and the staff brought extra pillows.",
    "couple": "A pleasant weekend away for the two of us.",
    "solo": "Comfortable base for a solo city break.",
    "leisure": "Nice hotel for a few days of holiday.",
}


def good_keys(h):
    keys = ["staff", "breakfast", "clean", "location", "quiet"]
    if h[5]:
        keys += ["rooftop", "rooftop"]
    if h[7]:
        keys.append("pool")
    return keys


def bad_keys(h):
    keys = ["aircon", "checkin", "wifi", "shower", "street", "elevator", "small", "breakfast"]
    if h[6]:
        keys += ["parking", "parking"]
    return keys


def text_for(h, score, trip):
    g, b = good_keys(h), bad_keys(h)
    if score >= 8:
        picks = [("g", rng.choice(g))]
        if rng.random() < 0.6:
            picks.append(("g", rng.choice(g)))
    elif score >= 6:
        picks = [("g", rng.choice(g)), ("b", rng.choice(b))]
        rng.shuffle(picks)
    else:
        picks = [("b", rng.choice(b))]
        if rng.random() < 0.65:
            picks.append(("b", rng.choice(b)))
    sentences = []
    for kind, key in picks:
        s = rng.choice((GOOD if kind == "g" else BAD)[key])
        if s not in sentences:
            sentences.append(s)
    if len(sentences) == 1 and rng.random() < 0.3:
        sentences.append(NEUTRAL[trip])
    return " ".join(sentences)


def day(d):
    return d.isoformat()


START = datetime.date(2024, 7, 1)
records = []
used_names = set()
N = 376
for i in range(N):
    h = rng.choices(HOTELS, WEIGHTS)[0]
    nat = rng.choices(list(NAT_WEIGHTS), list(NAT_WEIGHTS.values()))[0]
    first = rng.choice(GUESTS[nat][0])
    last = rng.choice(GUESTS[nat][1])
    trip = rng.choices(TRIPS, TRIP_WEIGHTS)[0]
    if trip == "family":
        room = rng.choices(ROOMS, [2, 2, 1, 1, 1, 8])[0]
    elif trip == "business":
        room = rng.choices(ROOMS, [10, 6, 3, 1, 0.5, 0])[0]
    else:
        room = rng.choices(ROOMS, [6, 6, 4, 2, 1, 0.5])[0]
    if trip == "business":
        nights = rng.choices([1, 2, 3, 4, 5], [30, 30, 20, 12, 8])[0]
    else:
        nights = rng.choices([1, 2, 3, 4, 5, 6, 7, 8, 9], [8, 18, 20, 18, 12, 8, 9, 4, 3])[0]
    stay = START + datetime.timedelta(days=rng.randrange(0, 350))
    review = stay + datetime.timedelta(days=nights + rng.choices([0, 1, 2, 3, 5, 8, 14, 21], [10, 20, 18, 14, 12, 10, 8, 8])[0])
    q = h[4] + {"suite": 0.8, "junior suite": 0.5, "deluxe": 0.3}.get(room, 0) + rng.gauss(0, 1.7)
    score = max(1, min(10, int(round(q))))
    rec = {
        "review_id": None,
        "hotelName": h[0],
        "hotel_city": h[1],
        "hotelCountry": h[2],
        "star_rating": h[3],
        "guestFirstName": first,
        "guest_last_name": last,
        "guestNationality": nat,
        "stay_date": stay,
        "reviewDate": review,
        "nights_stayed": nights,
        "roomType": room,
        "trip_type": trip,
        "overallScore": score,
    }
    if rng.random() < 0.78:
        rec["cleanliness_score"] = max(1, min(10, int(round(score + rng.gauss(0.3, 1.2)))))
    rec["wouldRecommend"] = score >= 7 or (score == 6 and rng.random() < 0.4)
    rec["is_loyalty_member"] = rng.random() < (0.45 if trip == "business" else 0.25)
    p_resp = 0.75 if score <= 5 else 0.4
    if rng.random() < p_resp:
        rec["managerResponseDate"] = review + datetime.timedelta(days=rng.choice([0, 1, 1, 2, 2, 3, 4, 6, 9, 13]))
    rec["review_text"] = text_for(h, score, trip)
    records.append(rec)

# Planted records: a returning guest, and the longest stays (unique maxima).
hotel = {h[0]: h for h in HOTELS}


def plant(hname, first, last, nat, stay, nights, room, trip, score, clean, rec_, loyal, resp_days, text, lag=2):
    h = hotel[hname]
    s = datetime.date.fromisoformat(stay)
    r = s + datetime.timedelta(days=nights + lag)
    rec = {
        "review_id": None, "hotelName": h[0], "hotel_city": h[1], "hotelCountry": h[2], "star_rating": h[3],
        "guestFirstName": first, "guest_last_name": last, "guestNationality": nat,
        "stay_date": s, "reviewDate": r, "nights_stayed": nights, "roomType": room, "trip_type": trip,
        "overallScore": score,
    }
    if clean is not None:
        rec["cleanliness_score"] = clean
    rec["wouldRecommend"] = rec_
    rec["is_loyalty_member"] = loyal
    if resp_days is not None:
        rec["managerResponseDate"] = r + datetime.timedelta(days=resp_days)
    rec["review_text"] = text
    records.append(rec)


plant("Solenne Wien Ring", "Ingrid", "Solberg", "NO", "2024-09-12", 3, "deluxe", "business", 9, 9, True, True, None,
      "The staff were friendly and helpful from arrival to departure. Good value for a short business trip.")
plant("Solenne Munich Isar", "Ingrid", "Solberg", "NO", "2025-01-20", 2, "superior", "business", 6, None, False, True, 1,
      "Check-in was slow and we waited almost an hour for our room. Perfect location for sightseeing on foot.")
plant("Solenne Berlin Mitte", "Ingrid", "Solberg", "NO", "2025-04-07", 4, "superior", "business", 8, 8, True, True, None,
      "The rooftop bar has a wonderful view over the city.")
plant("Solenne Barcelona Mar", "Henrik", "Aalto", "FI", "2024-10-02", 14, "suite", "leisure", 10, 10, True, False, 3,
      "Drinks at the rooftop bar at sunset were the highlight of our stay. The pool and spa were a real bonus after long days out.")
plant("Solenne Lisboa Riverside", "Margaret", "Doyle", "IE", "2025-02-03", 12, "junior suite", "leisure", 8, None, True, True, None,
      "Excellent location, a short walk from the old town and the metro. Weak wifi signal on our floor.")
plant("Solenne Roma Trastevere", "Pieter", "Claes", "BE", "2025-03-15", 11, "deluxe", "couple", 5, 6, False, False, 2,
      "The shower was lukewarm and the water pressure weak. Street noise made it hard to sleep with the window open.")

records.sort(key=lambda r: (r["reviewDate"], r["hotelName"], r["guest_last_name"]))
counter = {}
for r in records:
    y = r["reviewDate"].year % 100
    counter[y] = counter.get(y, 0) + 1
    r["review_id"] = f"REV-{y:02d}-{counter[y]:04d}"
    for k in ("stay_date", "reviewDate", "managerResponseDate"):
        if k in r:
            r[k] = day(r[k])

with open(os.path.join(HERE, "reviews.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} reviews")
