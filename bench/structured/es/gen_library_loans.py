#!/usr/bin/env python3
"""Generate library_loans.jsonl: loans of the public library network of a border region, with
branches in NL, BE and LU, items borrowed January 2024 - October 2025.

Each record is one loan: the loan id, the branch (name, city, country code), the borrower (first and
last name in two fields, age group, membership and student flags), the item (title, type, genre,
author, publication year, ISBN), the loan, due and return dates, the days overdue and the fine, the
renewals, the staff member who checked the item out at the desk, the checkout channel, the condition
of the item on return and a free-text comment of the borrower.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `returnedDate` and `condition_on_return` while the item
has not been returned, `daysOverdue` when the item came back on time or is still out, `fine_eur`
when no fine was charged, `author` on DVDs, magazines, board games and travel guides, `isbn` on
DVDs, magazines and board games, `condition_on_return` on ebooks, `staff_member` on self-service
and app loans, `borrower_comment` where the borrower left none.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261129 + 16)

START = date(2024, 1, 2)
END = date(2025, 10, 31)
TODAY = date(2025, 11, 4)
N = 352

# branch name -> (city, country code, weight, staff, locale of the borrowers)
BRANCHES = {
    "Centre Céramique": ("Maastricht", "NL", 46, ["Femke Janssen", "Ruud Hermans", "Yvonne Claessens"], "nl"),
    "Bibliotheek Venlo": ("Venlo", "NL", 28, ["Bram Verhoeven", "Ilse Peeters"], "nl"),
    "Glaspaleis": ("Heerlen", "NL", 26, ["Marloes Kessels", "Wim Lemmens"], "nl"),
    "De Krook": ("Ghent", "BE", 48, ["Joris De Smet", "Katrien Van Damme", "Pieter Maes"], "nl"),
    "Permeke": ("Antwerp", "BE", 40, ["Evelien Wouters", "Stijn Goossens"], "nl"),
    "Bibliotheek Hasselt": ("Hasselt", "BE", 26, ["Annelies Vanhoof", "Koen Robben"], "nl"),
    "Les Chiroux": ("Liège", "BE", 34, ["Nathalie Dubois", "Olivier Lambert"], "fr"),
    "Cité Bibliothèque": ("Luxembourg", "LU", 36, ["Carole Schmit", "Marc Weber", "Ana Ferreira"], "lu"),
    "Bibliothèque Esch": ("Esch-sur-Alzette", "LU", 22, ["Tom Hoffmann", "Sandrine Kieffer"], "lu"),
}

FIRST = {
    "nl": {"child": ["Noah", "Tess", "Finn", "Julia", "Lotte", "Mila", "Lars", "Fien"],
           "teen": ["Daan", "Sara", "Jesse", "Emma", "Lieke", "Senne", "Nina"],
           "adult": ["Sanne", "Thomas", "Eva", "Jeroen", "Kim", "Bart", "Lisa", "Tom", "Anouk", "Wouter"],
           "senior": ["Gerard", "Mieke", "Jan", "Riet", "Hendrik", "Marleen", "Frans"]},
    "fr": {"child": ["Louis", "Léa", "Hugo", "Chloé"],
           "teen": ["Lucas", "Manon", "Théo", "Camille"],
           "adult": ["Julien", "Sophie", "Nicolas", "Aurélie", "Mathieu", "Céline"],
           "senior": ["Jacques", "Monique", "André", "Françoise"]},
    "lu": {"child": ["Ben", "Lena", "Tiago", "Mia"],
           "teen": ["Luca", "Lara", "Gil", "Inês"],
           "adult": ["Laurent", "Claudine", "Pedro", "Nadine", "Yves", "Joëlle"],
           "senior": ["Fernand", "Josée", "Romain", "Marie-Paule"]},
}
LAST = {
    "nl": ["de Vries", "Janssens", "Peeters", "Bakker", "Willems", "Vermeulen", "Smeets", "Claes",
           "Jacobs", "van Dijk", "Mertens", "Hendriks", "Wuyts", "Meijer", "Coenen", "Verbruggen"],
    "fr": ["Martin", "Lejeune", "Renard", "Collard", "Lambert", "Dumont", "Leclercq", "Gilson"],
    "lu": ["Muller", "Schmitz", "Wagner", "Da Silva", "Reuter", "Kremer", "Thill", "Pereira"],
}

# (title, item_type, genre, author or None, publication year, audience, weight)
# audience: child, teen, adult, all
ITEMS = [
    ("Het diner", "book", "fiction", "Herman Koch", 2009, "adult", 3),
    ("Het smelt", "book", "fiction", "Lize Spit", 2016, "adult", 3),
    ("Tirza", "book", "fiction", "Arnon Grunberg", 2006, "adult", 2),
    ("Het verdriet van België", "book", "fiction", "Hugo Claus", 1983, "adult", 2),
    ("De avond is ongemak", "book", "fiction", "Marieke Lucas Rijneveld", 2018, "adult", 2),
    ("L'Étranger", "book", "fiction", "Albert Camus", 1942, "adult", 2),
    ("La Vie devant soi", "book", "fiction", "Romain Gary", 1975, "adult", 1),
    ("The Midnight Library", "book", "fiction", "Matt Haig", 2020, "adult", 3),
    ("Normal People", "book", "fiction", "Sally Rooney", 2018, "adult", 2),
    ("Lessons in Chemistry", "book", "fiction", "Bonnie Garmus", 2022, "adult", 3),
    ("Gone Girl", "book", "thriller", "Gillian Flynn", 2012, "adult", 2),
    ("The Silent Patient", "book", "thriller", "Alex Michaelides", 2019, "adult", 3),
    ("Het vierkant van de wraak", "book", "thriller", "Pieter Aspe", 1995, "adult", 2),
    ("De Eetclub", "book", "thriller", "Saskia Noort", 2004, "adult", 2),
    ("Murder on the Orient Express", "book", "thriller", "Agatha Christie", 1934, "adult", 2),
    ("The Girl with the Dragon Tattoo", "book", "thriller", "Stieg Larsson", 2005, "adult", 2),
    ("Harry Potter and the Philosopher's Stone", "book", "fantasy", "J.K. Rowling", 1997, "teen", 3),
    ("The Hobbit", "book", "fantasy", "J.R.R. Tolkien", 1937, "teen", 2),
    ("A Game of Thrones", "book", "fantasy", "George R.R. Martin", 1996, "adult", 2),
    ("Fourth Wing", "book", "fantasy", "Rebecca Yarros", 2023, "teen", 3),
    ("Dune", "book", "science fiction", "Frank Herbert", 1965, "adult", 2),
    ("Project Hail Mary", "book", "science fiction", "Andy Weir", 2021, "adult", 2),
    ("1984", "book", "science fiction", "George Orwell", 1949, "adult", 2),
    ("It Ends with Us", "book", "romance", "Colleen Hoover", 2016, "adult", 3),
    ("Me Before You", "book", "romance", "Jojo Moyes", 2012, "adult", 2),
    ("Sapiens", "book", "history", "Yuval Noah Harari", 2011, "adult", 2),
    ("Congo", "book", "history", "David Van Reybrouck", 2010, "adult", 2),
    ("Revolusi", "book", "history", "David Van Reybrouck", 2020, "adult", 2),
    ("Becoming", "book", "biography", "Michelle Obama", 2018, "adult", 2),
    ("Het Achterhuis", "book", "biography", "Anne Frank", 1947, "teen", 2),
    ("Spare", "book", "biography", "Prince Harry", 2023, "adult", 2),
    ("Ottolenghi Simple", "book", "cooking", "Yotam Ottolenghi", 2018, "adult", 2),
    ("Dagelijkse kost", "book", "cooking", "Jeroen Meus", 2013, "adult", 2),
    ("Lonely Planet Belgium & Luxembourg", "book", "travel", None, 2023, "adult", 1),
    ("Wandelen in de Ardennen", "book", "travel", None, 2021, "adult", 1),
    ("A Brief History of Time", "book", "science", "Stephen Hawking", 1988, "adult", 1),
    ("Why We Sleep", "book", "science", "Matthew Walker", 2017, "adult", 2),
    ("Kikker is verliefd", "book", "picture book", "Max Velthuijs", 1989, "child", 2),
    ("The Very Hungry Caterpillar", "book", "picture book", "Eric Carle", 1969, "child", 2),
    ("De Gruffalo", "book", "picture book", "Julia Donaldson", 1999, "child", 3),
    ("Nijntje in de speeltuin", "book", "picture book", "Dick Bruna", 1970, "child", 2),
    ("Matilda", "book", "children", "Roald Dahl", 1988, "child", 2),
    ("Dolfje Weerwolfje", "book", "children", "Paul van Loon", 1987, "child", 2),
    ("Het leven van een loser", "book", "children", "Jeff Kinney", 2007, "child", 3),
    ("Dog Man", "book", "children", "Dav Pilkey", 2016, "child", 2),
    ("Le Petit Prince", "book", "children", "Antoine de Saint-Exupéry", 1943, "all", 2),
    ("Kruistocht in spijkerbroek", "book", "young adult", "Thea Beckman", 1973, "teen", 2),
    ("The Hunger Games", "book", "young adult", "Suzanne Collins", 2008, "teen", 2),
    ("Heartstopper", "book", "young adult", "Alice Oseman", 2019, "teen", 2),
    ("Tintin au Tibet", "book", "comics", "Hergé", 1960, "all", 2),
    ("Astérix le Gaulois", "book", "comics", "René Goscinny", 1961, "all", 2),
    ("De Texasrakkers", "book", "comics", "Willy Vandersteen", 1953, "all", 2),
    # ebooks
    ("Het diner", "ebook", "fiction", "Herman Koch", 2009, "adult", 2),
    ("The Midnight Library", "ebook", "fiction", "Matt Haig", 2020, "adult", 2),
    ("Lessons in Chemistry", "ebook", "fiction", "Bonnie Garmus", 2022, "adult", 2),
    ("The Silent Patient", "ebook", "thriller", "Alex Michaelides", 2019, "adult", 2),
    ("Fourth Wing", "ebook", "fantasy", "Rebecca Yarros", 2023, "teen", 2),
    ("Project Hail Mary", "ebook", "science fiction", "Andy Weir", 2021, "adult", 2),
    ("It Ends with Us", "ebook", "romance", "Colleen Hoover", 2016, "adult", 2),
    ("Sapiens", "ebook", "history", "Yuval Noah Harari", 2011, "adult", 1),
    ("Revolusi", "ebook", "history", "David Van Reybrouck", 2020, "adult", 1),
    ("Dune", "ebook", "science fiction", "Frank Herbert", 1965, "adult", 1),
    # audiobooks
    ("Project Hail Mary", "audiobook", "science fiction", "Andy Weir", 2021, "adult", 2),
    ("Sapiens", "audiobook", "history", "Yuval Noah Harari", 2011, "adult", 1),
    ("Harry Potter and the Philosopher's Stone", "audiobook", "fantasy", "J.K. Rowling", 1997, "teen", 2),
    ("Het smelt", "audiobook", "fiction", "Lize Spit", 2016, "adult", 1),
    ("Becoming", "audiobook", "biography", "Michelle Obama", 2018, "adult", 1),
    ("The Hobbit", "audiobook", "fantasy", "J.R.R. Tolkien", 1937, "teen", 1),
    ("Murder on the Orient Express", "audiobook", "thriller", "Agatha Christie", 1934, "adult", 1),
    # DVDs
    ("Oppenheimer", "dvd", "drama", None, 2023, "adult", 2),
    ("Close", "dvd", "drama", None, 2022, "adult", 2),
    ("Het smelt", "dvd", "drama", None, 2023, "adult", 1),
    ("Rundskop", "dvd", "drama", None, 2011, "adult", 1),
    ("Zwartboek", "dvd", "drama", None, 2006, "adult", 1),
    ("Barbie", "dvd", "comedy", None, 2023, "all", 2),
    ("Soof", "dvd", "comedy", None, 2013, "adult", 1),
    ("Dune: Part Two", "dvd", "science fiction", None, 2024, "teen", 2),
    ("Inside Out 2", "dvd", "animation", None, 2024, "child", 2),
    ("Frozen II", "dvd", "animation", None, 2019, "child", 2),
    ("Planet Earth III", "dvd", "documentary", None, 2023, "all", 1),
    # magazines
    ("Knack", "magazine", "news", None, None, "adult", 2),
    ("Paris Match", "magazine", "news", None, None, "adult", 1),
    ("Libelle", "magazine", "lifestyle", None, None, "adult", 2),
    ("Flair", "magazine", "lifestyle", None, None, "adult", 1),
    ("National Geographic", "magazine", "nature", None, None, "all", 2),
    ("Quest", "magazine", "science", None, None, "teen", 1),
    ("Donald Duck", "magazine", "comics", None, None, "child", 2),
    # board games
    ("Catan", "board game", "strategy", None, 1995, "all", 2),
    ("Ticket to Ride", "board game", "family", None, 2004, "all", 2),
    ("Carcassonne", "board game", "family", None, 2000, "all", 2),
    ("Dixit", "board game", "party", None, 2008, "all", 1),
    ("Codenames", "board game", "party", None, 2015, "teen", 1),
    ("Pandemic", "board game", "cooperative", None, 2008, "adult", 1),
    ("Azul", "board game", "strategy", None, 2017, "all", 1),
    ("Wingspan", "board game", "strategy", None, 2019, "adult", 1),
]

LOAN_DAYS = {"book": 21, "ebook": 21, "audiobook": 21, "magazine": 14, "dvd": 7, "board game": 14}
FINE_PER_DAY = {"book": 0.25, "audiobook": 0.25, "magazine": 0.25, "dvd": 1.00, "board game": 0.50}
FINE_CAP = 12.00
DAMAGE_FEE = {"book": 7.50, "audiobook": 10.00, "magazine": 2.50, "dvd": 10.00, "board game": 15.00}

AUDIENCE_FIT = {
    "child": {"child": 10, "all": 4, "teen": 1, "adult": 0},
    "teen": {"teen": 8, "all": 3, "child": 1, "adult": 2},
    "adult": {"adult": 8, "all": 2, "teen": 1, "child": 1},
    "senior": {"adult": 9, "all": 2, "teen": 0, "child": 1},
}

# theme -> (phrasings, item types it fits, when: returned / overdue / any, condition it implies)
COMMENTS = {
    "torn_page": (["There was a torn page near the end, it was already like that when I borrowed it.",
                   "One torn page in the middle, I taped it carefully.",
                   "Found a torn page at the back, please check before the next borrower."],
                  {"book", "magazine"}, "returned", "damaged"),
    "stain": (["There is a coffee stain on the cover, sorry about that.",
               "A stain on the first pages was there before I borrowed it.",
               "My little brother left a juice stain on the back cover."],
              {"book", "magazine"}, "returned", "worn"),
    "scratched": (["The disc is scratched and skips halfway through.",
                   "Disc two was scratched, could not listen to the last chapters.",
                   "Badly scratched, it stopped playing after ten minutes."],
                  {"dvd", "audiobook"}, "returned", "damaged"),
    "pieces": (["Two pieces were missing from the box when we opened it.",
                "Some pieces are missing, we counted three times.",
                "All pieces present, great game night with friends."],
               {"board game"}, "returned", None),
    "subtitles": (["No Dutch subtitles on this disc, only French and English.",
                   "The subtitles were out of sync with the film."],
                  {"dvd"}, "returned", None),
    "abroad": (["Sorry for the late return, I was abroad for a few weeks.",
                "Was abroad on holiday and forgot to renew in time."],
               {"book", "ebook", "audiobook", "dvd", "magazine", "board game"}, "overdue", None),
    "recommend": (["Wonderful read, I would recommend it to anyone.",
                   "Could not put it down, I recommend it to every book club.",
                   "Great story, recommend it to friends already."],
                  {"book", "ebook", "audiobook"}, "any", None),
    "sequel": (["Loved it, is the sequel available at this branch?",
                "Please order the sequel for the library, I want to know how it ends."],
               {"book", "ebook", "audiobook"}, "any", None),
    "kids": (["The kids loved it and want to borrow it again.",
              "Our kids read it every evening before bedtime."],
             {"book", "dvd", "board game", "magazine"}, "any", None),
    "crashed": (["The reading app crashed twice while downloading the file.",
                 "The app crashed at chapter five and lost my bookmark."],
                {"ebook"}, "any", None),
    "machine": (["The self-service machine did not register the return at first.",
                 "The machine printed no receipt, had to ask at the desk."],
                {"book", "dvd", "magazine", "audiobook"}, "returned", None),
    "narrator": (["The narrator has a lovely voice, easy to follow.",
                  "Did not like the narrator, too slow for me."],
                 {"audiobook"}, "any", None),
    "large_print": (["Would be nice to have this title in large print.",
                     "The letters are small, is there a large print edition?"],
                    {"book"}, "any", None),
    "pencil": (["Someone underlined whole passages in pencil.",
                "Notes in pencil in the margins, not mine."],
               {"book"}, "returned", "worn"),
}


def isbn13(prefix):
    digits = prefix + "".join(str(rng.randint(0, 9)) for _ in range(12 - len(prefix)))
    s = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits))
    return digits + str((10 - s % 10) % 10)


# catalogue: one ISBN per edition
catalogue = []
for title, itype, genre, author, year, aud, w in ITEMS:
    isbn = None
    if itype in ("book", "ebook", "audiobook"):
        if any(ch in title for ch in "éÉè") or title in ("La Vie devant soi", "Tintin au Tibet"):
            prefix = "9782"
        elif author in ("Herman Koch", "Lize Spit", "Arnon Grunberg", "Hugo Claus", "Marieke Lucas Rijneveld",
                        "Pieter Aspe", "Saskia Noort", "David Van Reybrouck", "Anne Frank", "Jeroen Meus",
                        "Max Velthuijs", "Dick Bruna", "Paul van Loon", "Thea Beckman", "Willy Vandersteen") \
                or title in ("De Gruffalo", "Het leven van een loser", "Wandelen in de Ardennen"):
            prefix = "97890"
        else:
            prefix = "9781"
        isbn = isbn13(prefix)
    catalogue.append({"title": title, "type": itype, "genre": genre, "author": author, "year": year,
                      "aud": aud, "w": w, "isbn": isbn})

# borrowers: each has a home branch
borrowers = []
used = set()
AGE_W = {"child": 18, "teen": 14, "adult": 46, "senior": 22}
for branch, (_city, cc, w, _staff, loc) in BRANCHES.items():
    for _ in range(max(6, w // 3)):
        age = rng.choices(list(AGE_W), weights=list(AGE_W.values()))[0]
        while True:
            fn, ln = rng.choice(FIRST[loc][age]), rng.choice(LAST[loc])
            if (fn, ln) not in used:
                used.add((fn, ln))
                break
        student = {"child": 0.0, "teen": 0.55, "adult": 0.14, "senior": 0.0}[age]
        borrowers.append({"first": fn, "last": ln, "branch": branch, "age": age,
                          "member": rng.random() < 0.84, "student": rng.random() < student,
                          "activity": rng.choice([1, 1, 2, 2, 3, 4]),
                          "digital": rng.random() < (0.5 if age in ("teen", "adult") else 0.15)})

branch_names = list(BRANCHES)


def pick_item(b):
    fit = AUDIENCE_FIT[b["age"]]
    weights = []
    for it in catalogue:
        w = it["w"] * fit[it["aud"]]
        if it["type"] == "ebook":
            w *= 2.5 if b["digital"] else 0.1
        if it["type"] == "magazine" and b["age"] == "senior":
            w *= 2
        if it["type"] == "audiobook" and b["age"] == "senior":
            w *= 1.5
        weights.append(w)
    return rng.choices(catalogue, weights=weights)[0]


records = []
span = (END - START).days
while len(records) < N:
    b = rng.choices(borrowers, weights=[x["activity"] * BRANCHES[x["branch"]][2] for x in borrowers])[0]
    branch = b["branch"] if rng.random() < 0.9 else rng.choice(branch_names)
    city, cc, _w, staff, _loc = BRANCHES[branch]
    loan = START + timedelta(days=rng.randint(0, span))
    if loan.weekday() == 6:
        continue
    it = pick_item(b)
    itype = it["type"]

    if itype == "ebook":
        channel = "app"
    else:
        channel = rng.choices(["desk", "self-service", "app"], weights=[46, 40, 14])[0]
        if b["age"] == "child" and channel == "app":
            channel = "desk"

    renewals = 0
    if itype != "magazine" and rng.random() < 0.26:
        renewals = rng.choices([1, 2, 3], weights=[70, 24, 6])[0]
    period = LOAN_DAYS[itype]
    due = loan + timedelta(days=period * (1 + renewals))

    # when did it come back
    if itype == "ebook":
        ret = due if rng.random() < 0.78 else loan + timedelta(days=rng.randint(3, (due - loan).days - 1))
    else:
        r = rng.random()
        if r < 0.72:
            ret = loan + timedelta(days=rng.randint(2, (due - loan).days))
        elif r < 0.975:
            ret = due + timedelta(days=rng.choices([rng.randint(1, 7), rng.randint(8, 21), rng.randint(22, 45)],
                                                   weights=[60, 30, 10])[0])
        else:
            ret = None  # lost / never brought back
    if ret is not None and ret > TODAY:
        ret = None
    overdue = (ret - due).days if ret is not None and ret > due else None

    # comment
    theme = None
    if rng.random() < 0.30:
        pool = []
        for t, (_p, types, when, _cond) in COMMENTS.items():
            if itype not in types:
                continue
            if when == "returned" and ret is None:
                continue
            if when == "overdue" and overdue is None:
                continue
            if t == "kids" and b["age"] not in ("child", "adult"):
                continue
            if t == "large_print" and b["age"] != "senior":
                continue
            if t == "machine" and channel != "self-service":
                continue
            if t == "sequel" and it["genre"] not in ("fantasy", "science fiction", "young adult", "children", "thriller"):
                continue
            pool.append(t)
        if pool:
            theme = rng.choice(pool)
    comment = rng.choice(COMMENTS[theme][0]) if theme else None
    if theme == "kids" and itype in ("dvd", "board game"):
        comment = COMMENTS[theme][0][0]  # nothing to read

    condition = None
    if ret is not None and itype != "ebook":
        condition = rng.choices(["good", "worn", "damaged"], weights=[76, 17, 7])[0]
        implied = COMMENTS[theme][3] if theme else None
        if implied == "damaged":
            condition = "damaged" if rng.random() < 0.7 else "worn"
        elif implied == "worn" and condition == "good":
            condition = "worn"
        if theme == "pieces":
            condition = ("damaged" if rng.random() < 0.5 else "worn") if "missing" in comment else "good"

    fine = 0.0
    if overdue is not None and itype != "ebook" and b["age"] != "child":
        fine += min(FINE_CAP, overdue * FINE_PER_DAY[itype])
    if condition == "damaged":
        fine += DAMAGE_FEE[itype]
    fine = round(fine, 2)

    pub_year = it["year"]
    if pub_year is None:  # magazine issue of the loan year (or late previous year)
        pub_year = loan.year if loan.month > 1 or rng.random() < 0.5 else loan.year - 1

    staff_member = rng.choice(staff) if channel == "desk" else None
    rec = {
        "branch_name": branch,
        "branchCity": city,
        "country": cc,
        "borrower_first_name": b["first"],
        "borrowerLastName": b["last"],
        "borrowerAgeGroup": b["age"],
        "isMember": b["member"],
        "is_student": b["student"],
        "item_title": it["title"],
        "item_type": itype,
        "genre": it["genre"],
    }
    if it["author"] is not None:
        rec["author"] = it["author"]
    rec["publication_year"] = pub_year
    if it["isbn"] is not None:
        rec["isbn"] = it["isbn"]
    rec["loanDate"] = loan.isoformat()
    rec["dueDate"] = due.isoformat()
    if ret is not None:
        rec["returnedDate"] = ret.isoformat()
    if overdue is not None:
        rec["daysOverdue"] = overdue
    if fine > 0:
        rec["fine_eur"] = fine
    rec["was_renewed"] = renewals > 0
    rec["renewalCount"] = renewals
    rec["checkout_channel"] = channel
    if staff_member is not None:
        rec["staff_member"] = staff_member
    if condition is not None:
        rec["condition_on_return"] = condition
    if comment is not None:
        rec["borrower_comment"] = comment
    records.append(rec)

records.sort(key=lambda r: (r["loanDate"], r["branch_name"], r["item_title"]))
counters = {2024: 0, 2025: 0}
out = []
for r in records:
    y = int(r["loanDate"][:4])
    counters[y] += rng.randint(4, 38)
    out.append({"loanId": f"LN-{y}-{counters[y]:05d}", **r})

with open(os.path.join(HERE, "library_loans.jsonl"), "w", encoding="utf-8") as fh:
    for r in out:
        fh.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(out)} records")
