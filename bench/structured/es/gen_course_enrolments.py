#!/usr/bin/env python3
"""Generate course_enrolments.jsonl: enrolments on an online-learning platform, one record per
learner enrolled on one course, learners in DE, NL, FR, ES, PL and SE, enrolled 2024-2025.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `completedDate` on an enrolment that was not (yet)
completed.

`price_eur` is the list price of the course at enrolment (0 for the two free courses); `is_paid`
says whether the learner took the paid track (false: free audit). A certificate is only issued
for a completed, paid enrolment with a final quiz score of at least 60.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20251221)

# code: (title, category, level, price eur, total video minutes, popularity weight)
COURSES = {
    "DS-101": ("Introduction to Python for Data Analysis", "data_science", "beginner", 49, 540, 34),
    "DS-205": ("Machine Learning Foundations", "data_science", "intermediate", 129, 780, 26),
    "DS-310": ("Deep Learning with PyTorch", "data_science", "advanced", 199, 960, 12),
    "PR-110": ("JavaScript Essentials", "programming", "beginner", 39, 420, 28),
    "PR-220": ("Building REST APIs with Go", "programming", "intermediate", 89, 600, 14),
    "PR-330": ("Rust Systems Programming", "programming", "advanced", 149, 840, 9),
    "UX-101": ("UX Design Basics", "design", "beginner", 0, 300, 24),
    "UX-240": ("Figma for Product Teams", "design", "intermediate", 59, 360, 15),
    "BU-120": ("Project Management Fundamentals", "business", "beginner", 79, 480, 22),
    "BU-250": ("Financial Accounting for Managers", "business", "intermediate", 99, 660, 11),
    "BU-350": ("Leadership in Remote Teams", "business", "advanced", 119, 390, 8),
    "LA-101": ("Spanish for Beginners", "languages", "beginner", 0, 720, 27),
    "LA-215": ("Business German B1", "languages", "intermediate", 69, 900, 13),
    "MK-130": ("Digital Marketing Essentials", "marketing", "beginner", 45, 450, 20),
    "MK-260": ("SEO and Content Strategy", "marketing", "intermediate", 89, 510, 12),
    "MK-340": ("Marketing Analytics with SQL", "marketing", "advanced", 159, 690, 7),
}

NAMES = {
    "DE": (["Lena", "Jonas", "Mia", "Felix", "Hannah", "Lukas", "Sophie", "Maximilian", "Clara", "Tim"],
           ["Fischer", "Weber", "Wagner", "Becker", "Schäfer", "Krüger", "Neumann", "Zimmermann"]),
    "NL": (["Sanne", "Daan", "Lotte", "Bram", "Emma", "Thijs", "Fleur", "Ruben"],
           ["de Vries", "Jansen", "Bakker", "Visser", "Mulder", "de Graaf", "Kok"]),
    "FR": (["Camille", "Louis", "Chloé", "Hugo", "Manon", "Théo", "Julie", "Antoine"],
           ["Martin", "Bernard", "Lefèvre", "Moreau", "Girard", "Fontaine", "Rousseau"]),
    "ES": (["Lucía", "Pablo", "Carmen", "Javier", "Marta", "Diego", "Elena", "Sergio"],
           ["García", "Fernández", "López", "Sánchez", "Romero", "Navarro", "Torres"]),
    "PL": (["Zofia", "Jakub", "Aleksandra", "Piotr", "Maja", "Kacper", "Natalia"],
           ["Nowak", "Kowalski", "Wiśniewska", "Wójcik", "Kamiński", "Lewandowska"]),
    "SE": (["Elsa", "Oskar", "Astrid", "Erik", "Ingrid", "Nils", "Maja"],
           ["Lindqvist", "Johansson", "Berg", "Nyström", "Holm", "Ekström"]),
}
COUNTRY_WEIGHTS = {"DE": 30, "NL": 20, "FR": 22, "ES": 18, "PL": 14, "SE": 12}

DEVICES = ["desktop", "mobile", "tablet"]

# comment sentences, chosen by how the enrolment went; words recur across sentences on purpose
GOOD = [
    "Clear explanations and a good pace.",
    "The instructor explains everything with practical examples.",
    "Loved the exercises at the end of each module.",
    "Great course, the final project was really useful.",
    "The quizzes helped me check my progress.",
    "Good examples and friendly instructor.",
]
BAD = [
    "The audio was poor in some videos.",
    "The pace was too fast for me.",
    "Subtitles were out of sync in several videos.",
    "Some exercises had mistakes in the solutions.",
    "The quizzes felt too easy.",
    "Too much theory and not enough examples.",
    "The instructor reads from the slides.",
]
DROPPED = [
    "I ran out of time and stopped halfway.",
    "Work got busy so I never finished.",
    "The course was harder than I expected.",
    "I only watched the first videos.",
]
EXTRA = [
    "Please add subtitles in more languages.",
    "Would like more exercises with real data.",
    "Downloading the slides would help.",
]

TODAY = date(2025, 12, 10)
START = date(2024, 1, 3)
END = date(2025, 11, 25)
N = 350

learners = []
seen = set()
countries = list(COUNTRY_WEIGHTS)
while len(learners) < 150:
    c = rng.choices(countries, weights=list(COUNTRY_WEIGHTS.values()))[0]
    f, l = rng.choice(NAMES[c][0]), rng.choice(NAMES[c][1])
    if (f, l) not in seen:
        seen.add((f, l))
        learners.append((f, l, c))
# a few keen learners take many courses
learner_weights = [6 if i < 8 else (3 if i < 30 else 1) for i in range(len(learners))]

days = [START + timedelta(days=d) for d in range((END - START).days + 1)]
enrolled_days = sorted(rng.choice(days) for _ in range(N))
codes = list(COURSES)
counters = {2024: 0, 2025: 0}
records = []
taken = set()
for enrolled in enrolled_days:
    while True:
        first, last, country = rng.choices(learners, weights=learner_weights)[0]
        code = rng.choices(codes, weights=[c[5] for c in COURSES.values()])[0]
        if (first, last, code) not in taken:
            taken.add((first, last, code))
            break
    title, category, level, price, video_min, _ = COURSES[code]
    paid = price > 0 and rng.random() < {"beginner": 0.55, "intermediate": 0.72, "advanced": 0.85}[level]
    p_complete = {"beginner": 0.58, "intermediate": 0.48, "advanced": 0.38}[level] + (0.15 if paid else 0.0)
    completes = rng.random() < p_complete
    duration = int(rng.gauss(video_min / 9, video_min / 30)) + rng.randint(3, 40)
    duration = max(5, duration)
    completed = enrolled + timedelta(days=duration)
    if completes and completed > TODAY:
        completes = False
    if completes:
        watched = int(video_min * rng.uniform(0.88, 1.0))
        quiz = max(35, min(100, int(rng.gauss(78, 11))))
    else:
        watched = int(video_min * rng.uniform(0.02, 0.7))
        quiz = max(0, min(95, int(rng.gauss(52, 18))))
    certificate = completes and paid and quiz >= 60
    refunded = paid and not completes and rng.random() < 0.18

    if completes:
        pool = GOOD if rng.random() < (0.75 if quiz >= 70 else 0.45) else BAD
    else:
        pool = DROPPED if rng.random() < 0.55 else BAD
    text = rng.choice(pool)
    if rng.random() < 0.35:
        extra = rng.choice(EXTRA + (BAD if pool is GOOD else GOOD))
        if extra != text:
            text += " " + extra

    year = enrolled.year
    counters[year] += rng.randint(1, 3)
    rec = {
        "enrolment_ref": f"EN-{year}-{counters[year]:04d}",
        "course_code": code,
        "courseTitle": title,
        "course_category": category,
        "level": level,
        "learner_first_name": first,
        "learnerLastName": last,
        "country_code": country,
        "enrolled_on": enrolled.isoformat(),
    }
    if completes:
        rec["completedDate"] = completed.isoformat()
    rec.update({
        "is_paid": paid,
        "receivedCertificate": certificate,
        "wasRefunded": refunded,
        "watched_min": watched,
        "quiz_score_pct": quiz,
        "price_eur": price,
        "deviceType": rng.choices(DEVICES, weights=[55, 35, 10])[0],
        "learner_comment": text,
    })
    records.append(rec)

with open(os.path.join(HERE, "course_enrolments.jsonl"), "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(records)} records")
