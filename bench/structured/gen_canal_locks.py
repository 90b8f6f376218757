#!/usr/bin/env python3
"""Deterministic generator for canal_locks.sql.

A canal and river-navigation authority with locks and bridges on waterways in the
Netherlands, Belgium and France, 2024-2025: lock keepers and technicians (staff), vessel
owners, vessels (commercial barges and pleasure craft), passages through locks, toll
invoices, maintenance closures, incident reports and shift rosters.

Standard library only.  Usage: python3 gen_canal_locks.py  (writes canal_locks.sql next to it)
"""
import datetime
import os
import random

R = random.Random(20240611)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "canal_locks.sql")

D0 = datetime.date(2024, 1, 1)
D1 = datetime.date(2025, 12, 31)
NDAYS = (D1 - D0).days + 1


def day(i):
    return D0 + datetime.timedelta(days=i)


def iso(d):
    return d.isoformat() if d is not None else None


def q(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, Money):
        return "%.2f" % v.v
    return "'" + str(v).replace("'", "''") + "'"


class Money:
    def __init__(self, v):
        self.v = round(v + 1e-9, 2)


# ---------------------------------------------------------------- waterways
WATERWAYS = [
    # name, code, cemt class, length_km, is_tidal, speed_limit_kmh
    ("Maas", "WW-MAAS", "Vb", 250.0, 0, 18.0),
    ("Albertkanaal", "WW-ALBK", "Vb", 129.5, 0, 14.0),
    ("Zuid-Willemsvaart", "WW-ZWV", "IV", 122.0, 0, 12.0),
    ("Amsterdam-Rijnkanaal", "WW-ARK", "VIb", 72.0, 0, 18.0),
    ("Schelde-Rijnverbinding", "WW-SRV", "VIb", 37.0, 1, 18.0),
    ("Canal du Nord", "WW-CDN", "III", 95.0, 0, 10.0),
    ("Canal de Saint-Quentin", "WW-CSQ", "I", 92.5, 0, 8.0),
    ("Canal de la Sambre à l'Oise", "WW-CSO", "I", 67.0, 0, 6.0),
    ("Kanaal Gent-Terneuzen", "WW-KGT", "VIb", 32.0, 1, 16.0),
]

# ---------------------------------------------------------------- locks
# name, waterway index, country, length_m, width_m, lift_m, opened_year,
# is_automated, has_pleasure_chamber, is_open_24h, traffic weight
LOCKS = [
    ("Sluis Grave", 0, "NL", 260.0, 16.0, 2.9, 1929, 0, 1, 1, 10),
    ("Sluis Sambeek", 0, "NL", 142.0, 16.0, 3.5, 1929, 0, 1, 1, 9),
    ("Sluis Belfeld", 0, "NL", 225.0, 16.0, 3.3, 1929, 0, 0, 1, 9),
    ("Sluis Lith", 0, "NL", 260.0, 18.0, 4.0, 1936, 0, 1, 1, 10),
    ("Sluis Lanaye", 0, "BE", 225.0, 25.0, 13.7, 2015, 1, 0, 1, 7),
    ("Sluis Wijnegem", 1, "BE", 200.0, 24.0, 5.5, 1946, 0, 0, 1, 10),
    ("Sluis Olen", 1, "BE", 200.0, 24.0, 10.0, 1946, 0, 0, 1, 9),
    ("Sluis Diepenbeek", 1, "BE", 136.0, 16.0, 10.0, 1934, 1, 0, 1, 7),
    ("Sluis Empel", 2, "NL", 120.0, 12.5, 2.3, 2011, 1, 0, 0, 6),
    ("Sluis Den Dungen", 2, "NL", 120.0, 12.5, 2.0, 2014, 1, 0, 0, 5),
    ("Sluis Schijndel", 2, "NL", 110.0, 12.0, 2.4, 1826, 0, 0, 0, 4),
    ("Prinses Irenesluizen", 3, "NL", 330.0, 18.0, 1.8, 1952, 0, 0, 1, 10),
    ("Prins Bernhardsluizen", 3, "NL", 225.0, 18.0, 1.5, 1952, 0, 0, 1, 8),
    ("Kreekraksluizen", 4, "NL", 320.0, 24.0, 1.4, 1975, 0, 1, 1, 10),
    ("Écluse d'Arleux", 5, "FR", 91.9, 6.0, 6.4, 1965, 0, 0, 0, 5),
    ("Écluse de Moislains", 5, "FR", 91.9, 6.0, 4.9, 1965, 1, 0, 0, 4),
    ("Écluse de Lesdins", 6, "FR", 38.5, 5.2, 2.6, 1810, 0, 0, 0, 3),
    ("Écluse de Lehaucourt", 6, "FR", 38.5, 5.2, 3.0, 1822, 0, 0, 0, 3),
    ("Écluse de Landrecies", 7, "FR", 38.5, 5.2, 2.2, 1839, 0, 0, 0, 1),
    ("Zeesluis Terneuzen", 8, "NL", 366.0, 34.0, 4.5, 1968, 0, 0, 1, 0),
]

# ---------------------------------------------------------------- bridges
# name, waterway index, type, clearance_m, carries_railway, controlled_from lock index or None
BRIDGES = [
    ("Maasbrug Grave", 0, "fixed", 9.1, 0, None),
    ("Spoorbrug Ravenstein", 0, "lift", 6.5, 1, 3),
    ("Maasbrug Venlo", 0, "fixed", 9.5, 0, None),
    ("Brug Lanaken", 0, "fixed", 9.1, 0, None),
    ("Brug Oelegem", 1, "fixed", 9.1, 0, None),
    ("Brug Herentals", 1, "fixed", 9.1, 0, None),
    ("Spoorbrug Viersel", 1, "fixed", 9.1, 1, None),
    ("Brug Kuringen", 1, "fixed", 7.0, 0, None),
    ("Brug Empel", 2, "bascule", 5.4, 0, 8),
    ("Brug Middelrode", 2, "bascule", 5.3, 0, 9),
    ("Brug Veghel", 2, "swing", 4.6, 0, None),
    ("Brug Erp", 2, "swing", 4.4, 0, 10),
    ("Spoorbrug Houten", 3, "fixed", 9.1, 1, None),
    ("Brug Wijk bij Duurstede", 3, "fixed", 9.1, 0, None),
    ("Brug Woensdrecht", 4, "fixed", 9.1, 0, None),
    ("Pont-levis de Marquion", 5, "lift", 4.0, 0, 14),
    ("Pont de Péronne", 5, "fixed", 4.5, 0, None),
    ("Pont tournant de Lesdins", 6, "swing", 3.6, 0, 16),
    ("Pont-levis d'Omissy", 6, "bascule", 3.5, 0, None),
    ("Pont de Landrecies", 7, "swing", 3.5, 0, 18),
    ("Brug Sas van Gent", 8, "bascule", 7.4, 0, None),
    ("Brug Sluiskil", 8, "bascule", 6.8, 0, 19),
]

# ---------------------------------------------------------------- names
NL_FIRST = ["Jan", "Pieter", "Kees", "Henk", "Sanne", "Anouk", "Joris", "Marieke", "Bram",
            "Femke", "Ruud", "Wouter", "Ingrid", "Thijs", "Lotte", "Gert", "Ans", "Koen",
            "Esther", "Daan", "Willem", "Maaike", "Sjoerd", "Hanneke", "Teun", "Ilse"]
NL_LAST = ["de Vries", "Jansen", "van den Berg", "Bakker", "Visser", "Smit", "Meijer",
           "de Boer", "Mulder", "de Groot", "Bos", "Vos", "Peters", "Hendriks", "van Dijk",
           "Dekker", "Brouwer", "de Wit", "Kuipers", "Verhoeven", "van Leeuwen", "Schouten",
           "Kok", "Post", "Hoekstra", "Zwart"]
BE_FIRST = ["Luc", "Annelies", "Stijn", "Els", "Dirk", "Katrien", "Wim", "Nathalie", "Geert",
            "Sofie", "Filip", "Veerle", "Bart", "Hilde", "Jeroen", "Griet", "Tom", "Lieve"]
BE_LAST = ["Peeters", "Janssens", "Maes", "Jacobs", "Mertens", "Willems", "Claes", "Goossens",
           "Wouters", "De Smet", "D'Hondt", "Vermeulen", "Van Damme", "Lambrechts", "Dubois",
           "Verstraete", "Cools", "Hermans"]
FR_FIRST = ["Jean", "Marie", "Philippe", "Isabelle", "Olivier", "Hélène", "Laurent", "Sophie",
            "Nicolas", "Céline", "Thierry", "Camille", "Éric", "Aurélie", "Pascal", "Claire",
            "Julien", "Nathalie"]
FR_LAST = ["Martin", "Bernard", "Dubois", "Lefèvre", "Moreau", "Laurent", "Roux", "Fournier",
           "Girard", "Bonnet", "Dupont", "Lambert", "Fontaine", "Rousseau", "Leclerc",
           "Caron", "Mercier", "Duval"]
DE_FIRST = ["Klaus", "Sabine", "Jürgen", "Petra", "Markus", "Anja"]
DE_LAST = ["Müller", "Schmidt", "Becker", "Hoffmann", "Schulz", "Krüger"]
GB_FIRST = ["David", "Sarah", "James", "Emma", "Richard", "Helen"]
GB_LAST = ["Smith", "Taylor", "Brown", "Wilson", "Evans", "Clarke"]
NAMES = {
    "NL": (NL_FIRST, NL_LAST), "BE": (BE_FIRST, BE_LAST), "FR": (FR_FIRST, FR_LAST),
    "DE": (DE_FIRST, DE_LAST), "GB": (GB_FIRST, GB_LAST), "LU": (FR_FIRST, DE_LAST),
    "CH": (DE_FIRST, FR_LAST),
}

used_people = set()


def person(country):
    firsts, lasts = NAMES[country]
    while True:
        f, l = R.choice(firsts), R.choice(lasts)
        if (f, l) not in used_people:
            used_people.add((f, l))
            return f, l


def main():
    rows = {}

    # waterways
    rows["waterways"] = [(i + 1, w[0], w[1], w[2], w[3], w[4], w[5]) for i, w in enumerate(WATERWAYS)]

    # locks
    lock_rows = []
    for i, l in enumerate(LOCKS):
        lid = i + 1
        code = "LK-%s-%02d" % (l[2], sum(1 for x in LOCKS[:i + 1] if x[2] == l[2]))
        lock_rows.append((lid, code, l[0], l[1] + 1, l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9]))
    rows["locks"] = lock_rows
    lock_country = {r[0]: r[4] for r in lock_rows}
    lock_len = {r[0]: r[5] for r in lock_rows}
    lock_ww = {r[0]: r[3] for r in lock_rows}

    # bridges
    br = []
    for i, b in enumerate(BRIDGES):
        country = "NL"
        if b[1] in (1,):
            country = "BE"
        if b[1] in (5, 6, 7):
            country = "FR"
        if b[0] == "Brug Lanaken":
            country = "BE"
        n = sum(1 for r in br if r[1].split("-")[1] == country) + 1
        code = "BR-%s-%02d" % (country, n)
        movable = 0 if b[2] == "fixed" else 1
        ctrl = b[5] + 1 if b[5] is not None else None
        br.append((i + 1, code, b[0], b[1] + 1, b[2], b[3], movable, b[4], ctrl))
    rows["bridges"] = br

    # staff
    staff = []
    sid = [0]

    def add_staff(country, role, home, sup, hired, rate, part_time, first_aid):
        sid[0] += 1
        f, l = person(country)
        staff.append([sid[0], "EMP-%04d" % (100 + sid[0] * 7), f, l, role, home, sup,
                      iso(hired), Money(rate), part_time, first_aid])
        return sid[0]

    def rdate(y0, y1):
        a = datetime.date(y0, 1, 1).toordinal()
        b = datetime.date(y1, 12, 31).toordinal()
        return datetime.date.fromordinal(R.randint(a, b))

    managers = {}
    for c in ("NL", "BE", "FR"):
        managers[c] = add_staff(c, "district manager", None, None, rdate(1995, 2008),
                                R.choice([41.5, 43.0, 44.25]), 0, 1)
    locks_by_country = {c: [r[0] for r in lock_rows if r[4] == c] for c in ("NL", "BE", "FR")}
    supervisors = {}
    for c, n in (("NL", 3), ("BE", 2), ("FR", 2)):
        supervisors[c] = []
        for k in range(n):
            home = locks_by_country[c][k * len(locks_by_country[c]) // n]
            supervisors[c].append(add_staff(c, "shift supervisor", home, managers[c],
                                            rdate(2000, 2015), R.choice([32.5, 33.75, 35.0]), 0, 1))
    keepers = []
    for c in ("NL", "BE", "FR"):
        for lid in locks_by_country[c]:
            if lid == 20:          # Zeesluis Terneuzen: managed by the port, no own staff
                continue
            n = 2 if LOCKS[lid - 1][10] >= 7 else 1
            for k in range(n):
                role = "senior lock keeper" if (k == 0 and R.random() < 0.45) else "lock keeper"
                sup = R.choice(supervisors[c])
                if c == "FR" and lid == 19:
                    hired = datetime.date(2025, 3, 3)
                else:
                    hired = rdate(1998, 2023) if R.random() < 0.9 else rdate(2024, 2024)
                rate = {"senior lock keeper": R.choice([27.5, 28.25, 29.0]),
                        "lock keeper": R.choice([23.0, 23.75, 24.5, 25.25])}[role]
                pt = 1 if R.random() < 0.18 else 0
                fa = 1 if R.random() < 0.6 else 0
                keepers.append(add_staff(c, role, lid, sup, hired, rate, pt, fa))
    # one keeper without a first-aid course hired in November 2025, on the relief pool
    keepers.append(add_staff("NL", "lock keeper", 12, supervisors["NL"][0],
                             datetime.date(2025, 11, 17), 23.0, 0, 0))
    techs = {}
    for c, n in (("NL", 3), ("BE", 2), ("FR", 2)):
        techs[c] = []
        for k in range(n):
            techs[c].append(add_staff(c, "technician", None, managers[c], rdate(2003, 2022),
                                      R.choice([30.0, 31.5, 32.25]), 0, R.randint(0, 1)))
    # a supervisor without reports: a senior keeper who supervises nobody is normal; make one
    # NL supervisor the supervisor of nobody by re-pointing their keepers
    idle_sup = supervisors["NL"][2]
    for s in staff:
        if s[6] == idle_sup and s[4] in ("lock keeper", "senior lock keeper"):
            s[6] = supervisors["NL"][0]
    rows["staff"] = [tuple(s) for s in staff]
    staff_by_id = {s[0]: s for s in staff}
    keepers_at = {}
    for s in staff:
        if s[4] in ("lock keeper", "senior lock keeper", "shift supervisor") and s[5]:
            keepers_at.setdefault(s[5], []).append(s[0])

    # owners
    owners = []
    oid = [0]
    companies = ["Rederij Van Dijk", "Binnenvaart Jansen B.V.", "Maas Shipping", "Scheepvaartbedrijf De Hoop",
                 "Rhenus PartnerShip", "Danser Containerline", "Alcotrans", "Transports Fluviaux du Nord",
                 "Compagnie Fluviale de l'Escaut", "Somatrans", "Tankvaart Peeters NV", "Deckers Binnenvaart",
                 "Zandhandel Kuipers", "Baggerbedrijf De Boer", "Tankrederij Meijer", "Rederij Hoekstra",
                 "Batellerie Artisanale Caron", "Barges Lambert SARL", "Vlaamse Rederij Claes",
                 "Binnenvaartbedrijf Smit", "Groenewegen Tankers", "Rederij Verhoeven", "Péniches Roux",
                 "Duwvaart Maas-Rijn", "Cruise Rederij Zwart", "Rondvaart Bos", "Croisières Fontaine",
                 "Agrarische Transport Visser"]
    comp_country = ["NL", "NL", "NL", "NL", "DE", "NL", "BE", "FR", "FR", "FR", "BE", "BE", "NL", "NL",
                    "NL", "NL", "FR", "FR", "BE", "NL", "NL", "NL", "FR", "NL", "NL", "NL", "FR", "NL"]

    def email(f, l, dom):
        base = (f + "." + l).lower()
        for a, b in (("é", "e"), ("è", "e"), ("ü", "u"), ("'", ""), (" ", ""), ("ë", "e"), ("É", "e")):
            base = base.replace(a, b)
        return base + "@" + dom

    company_owner = []
    for cname, c in zip(companies, comp_country):
        oid[0] += 1
        f, l = person(c)
        dom = cname.lower().replace(" ", "").replace("'", "").replace(".", "").replace("é", "e")[:18] + ".eu"
        reg = rdate(2008, 2023) if R.random() < 0.9 else rdate(2024, 2025)
        owners.append((oid[0], "OW-%04d" % (1000 + oid[0]), f, l, cname, c, email(f, l, dom), iso(reg),
                       1 if R.random() < 0.8 else 0))
        company_owner.append(oid[0])
    # two companies registered in 2025 that have no vessel on the register yet
    for cname, c, f, l, reg in (("Nieuwe Maas Logistiek", "NL", "Ilse", "Brouwer", "2025-09-15"),
                                ("Fluvial Lys SAS", "FR", "Aurélie", "Mercier", "2025-10-02")):
        oid[0] += 1
        used_people.add((f, l))
        dom = cname.lower().replace(" ", "") + ".eu"
        owners.append((oid[0], "OW-%04d" % (1000 + oid[0]), f, l, cname, c, email(f, l, dom), reg, 0))
    private_owner = []
    for k in range(165):
        oid[0] += 1
        c = R.choices(["NL", "BE", "FR", "DE", "GB", "LU", "CH"], [40, 20, 18, 10, 7, 3, 2])[0]
        f, l = person(c)
        dom = R.choice(["gmail.com", "outlook.com", "ziggo.nl", "telenet.be", "orange.fr", "web.de", "proton.me"])
        reg = rdate(2010, 2023) if R.random() < 0.75 else rdate(2024, 2025)
        owners.append((oid[0], "OW-%04d" % (1000 + oid[0]), f, l, None, c, email(f, l, dom), iso(reg),
                       1 if R.random() < 0.35 else 0))
        private_owner.append(oid[0])
    rows["owners"] = owners
    owner_country = {o[0]: o[5] for o in owners}
    owner_reg = {o[0]: o[7] for o in owners}

    # vessels
    base_names = ["Johanna", "Vertrouwen", "Nooit Gedacht", "Alida", "Zeldenrust", "Avanti", "Fortuna",
                  "Hendrika", "Willemina", "Elisabeth", "Anna Maria", "Catharina", "Margaretha",
                  "Jacoba", "Adriana", "Cornelia", "Geertruida", "Petronella", "Wilhelmina", "Christina",
                  "Dorothea", "Helena", "Louise", "Emeraude", "Espérance", "Liberté", "Marjolaine",
                  "Odyssée", "Providence", "Saint-Nicolas", "Tijdgeest", "Volharding", "Eendracht",
                  "Voorwaarts", "Zeemeeuw", "Amicitia", "Concordia", "Deo Gratias", "Spes Mea",
                  "Orion", "Pegasus", "Sirius", "Vega", "Polaris", "Atlas", "Mercurius", "Neptunus",
                  "Zephyr", "Albatros", "Kingfisher", "Libelle", "Waterhoen", "Reiger", "Ijsvogel",
                  "Zwaluw", "Meeuw", "Aquarius", "Nautilus", "Escaut", "Somme", "Sambre", "Oise",
                  "Lys", "Dender", "Demer", "Dommel", "Aa", "Rur", "Niers", "Berkel"]
    suffixes = ["", " II", " III", " IV", " V", " VI"]
    pleasure_names = ["Zeebries", "Vrije Vogel", "Bonheur", "Joie de Vivre", "Sans Souci", "Dolce Vita",
                      "Blue Moon", "Lazy Days", "Kleine Beer", "Waterlelie", "Zonnetje", "Ondine",
                      "Petite Plume", "Morgenster", "Avondrood", "Puffin", "Otter", "Heron", "Salamander",
                      "Snoek", "Brasem", "Karper", "Nomade", "Vagabond", "Flâneur", "Rêverie",
                      "Windekind", "Luna", "Stella Maris", "Calypso", "Marlijn", "Esmeralda", "Tramontane",
                      "Mistral", "Sirocco", "Noordster", "De Zwerver", "Pluk", "Bolle Gijs", "Goede Reis"]
    used_vnames = set()

    def vname(pool):
        while True:
            n = R.choice(pool) + R.choice(suffixes)
            if n not in used_vnames:
                used_vnames.add(n)
                return n

    vessels = []
    vid = [0]
    used_eni = set()

    def eni(c):
        pre = {"NL": "02", "BE": "06", "FR": "01", "DE": "04"}.get(c, "02")
        while True:
            e = pre + "%06d" % R.randint(0, 999999)
            if e not in used_eni:
                used_eni.add(e)
                return e

    COMM = [("motor cargo", 55), ("tanker", 18), ("push convoy", 8), ("passenger", 7)]
    for k in range(215):
        vid[0] += 1
        vt = R.choices([c[0] for c in COMM], [c[1] for c in COMM])[0]
        # owner: company (most) or private owner-operator
        if R.random() < 0.78:
            ow = R.choice(company_owner[:24] if vt != "passenger" else company_owner[24:])
        else:
            ow = R.choice(private_owner[:60])
        c = owner_country[ow] if owner_country[ow] in ("NL", "BE", "FR", "DE") else "NL"
        small = R.random() < 0.28
        if vt == "push convoy":
            length, beam, dwt = R.choice([(185.0, 11.4), (193.0, 22.8), (110.0, 11.4)]) + (None,)
            dwt = int(length * beam * 1.45) // 10 * 10
        elif vt == "passenger":
            length = R.choice([38.5, 55.0, 82.0, 110.0, 135.0])
            beam = 5.05 if length < 40 else R.choice([9.5, 11.4])
            dwt = None
        elif small:
            length, beam = R.choice([(38.5, 5.05), (38.5, 5.05), (50.0, 6.6), (55.0, 7.2)])
            dwt = int(length * beam * (R.uniform(1.6, 2.0))) // 5 * 5
        else:
            length = R.choice([67.0, 80.0, 86.0, 105.0, 110.0, 135.0])
            beam = {67.0: 8.2, 80.0: 9.0, 86.0: 9.5, 105.0: 9.5, 110.0: 11.4, 135.0: 11.4}[length]
            dwt = int(length * beam * R.uniform(2.4, 3.0)) // 10 * 10
        built = R.randint(1955, 2023)
        vessels.append([vid[0], vname(base_names), eni(c), vt, 1, ow, length, beam, dwt, built,
                        c, 1])
    PLEAS = [("motor yacht", 60), ("sailing yacht", 25), ("houseboat", 15)]
    for k in range(125):
        vid[0] += 1
        vt = R.choices([c[0] for c in PLEAS], [c[1] for c in PLEAS])[0]
        ow = private_owner[60 + k % 95] if k < 95 else R.choice(private_owner[60:150])
        c = owner_country[ow]
        if vt == "houseboat":
            length, beam = R.choice([(12.0, 4.2), (15.0, 4.5), (20.0, 5.0), (24.0, 5.1)])
        else:
            length = round(R.uniform(7.5, 16.5), 1)
            beam = round(length * R.uniform(0.3, 0.36), 1)
        built = R.randint(1968, 2024)
        vessels.append([vid[0], vname(pleasure_names + base_names), None, vt, 0, ow, length, beam,
                        None, built, c, 1 if R.random() < 0.45 else 0])
    rows["vessels"] = [tuple(v) for v in vessels]

    # closures (before passages so passages avoid closed locks)
    closures = []
    closed = {}          # lock_id -> set of day offsets
    ccount = {2024: 0, 2025: 0}
    REASONS = [("planned maintenance", 1, 30), ("inspection", 1, 18), ("gate repair", 0, 16),
               ("high water", 0, 12), ("power failure", 0, 8), ("ice", 0, 5)]
    closure_plan = []
    for lid in range(1, 21):
        if lid in (3, 13, 17):      # never closed
            continue
        n = R.choice([1, 2, 2, 3, 3, 4])
        for k in range(n):
            closure_plan.append(lid)
    R.shuffle(closure_plan)
    for lid in closure_plan:
        reason, planned, _ = R.choices(REASONS, [r[2] for r in REASONS])[0]
        if reason == "ice":
            start = R.choice([R.randint(5, 40), 366 + R.randint(5, 45)])
            dur = R.randint(2, 9)
        elif reason == "high water":
            if lock_country[lid] == "FR" or lid in (10, 11):
                reason = "power failure"
            start = R.choice([R.randint(0, 80), R.randint(300, 440), R.randint(660, 720)])
            dur = R.randint(2, 12)
        else:
            start = R.randint(0, NDAYS - 30)
            dur = {"planned maintenance": R.randint(5, 28), "inspection": R.randint(1, 3),
                   "gate repair": R.randint(3, 21), "power failure": R.randint(1, 2)}[reason]
        if reason == "planned maintenance" and R.random() < 0.5:
            # maintenance preferably in winter
            start = R.choice([R.randint(0, 70), R.randint(305, 440), R.randint(670, 700)])
        span = set(range(start, start + dur))
        if any(span & closed.get(lid, set()) for _ in [0]):
            continue
        closed.setdefault(lid, set()).update(span)
        sd = day(start)
        ed = day(start + dur - 1)
        ccount[sd.year] += 1
        c = lock_country[lid]
        approver = managers[c] if (reason in ("planned maintenance", "gate repair") or R.random() < 0.3) \
            else R.choice(supervisors[c])
        tech = R.choice(techs[c]) if reason not in ("high water", "ice") else None
        if reason in ("high water", "ice"):
            cost = None
        else:
            base = {"planned maintenance": 9000, "inspection": 1200, "gate repair": 6000,
                    "power failure": 900}[reason]
            cost = Money(base * R.uniform(0.6, 1.8) * (dur if reason in ("planned maintenance", "gate repair") else 1) / (3 if reason == "planned maintenance" else 2))
        closures.append([None, None, lid, iso(sd), iso(ed), reason, planned, cost, approver, tech])
    closures.sort(key=lambda r: (r[3], r[2]))
    seq = {2024: 0, 2025: 0}
    for i, r in enumerate(closures):
        y = int(r[3][:4])
        seq[y] += 1
        r[0] = i + 1
        r[1] = "CL-%d-%03d" % (y, seq[y])
    rows["closures"] = [tuple(r) for r in closures]

    # passages
    passages = []
    lock_ids = [r[0] for r in lock_rows]
    weights = [LOCKS[i][10] for i in range(len(LOCKS))]
    lock_by_ww = {}
    for r in lock_rows:
        lock_by_ww.setdefault(r[3], []).append(r[0])
    never_pass = set(R.sample(range(1, 216), 6)) | set(R.sample(range(216, 341), 8))
    CARGO = [("grain", 16), ("sand and gravel", 22), ("containers", 14), ("coal", 6),
             ("steel", 8), ("fertiliser", 7), ("scrap metal", 6), ("animal feed", 6)]
    TANKC = [("petroleum products", 60), ("chemicals", 25), ("vegetable oil", 15)]
    # each vessel gets a set of 1-3 waterways it usually sails
    vessel_home = {}
    for v in vessels:
        vid_ = v[0]
        fits = [l for l in lock_ids if lock_len[l] >= v[6] and l != 20]
        wws = sorted(set(lock_ww[l] for l in fits))
        k = min(len(wws), R.choice([1, 2, 2, 3]))
        vessel_home[vid_] = sorted(R.sample(wws, k))
    pending = []
    for v in vessels:
        vid_ = v[0]
        if vid_ in never_pass:
            continue
        commercial = v[4] == 1
        if commercial:
            n = R.randint(4, 22) if v[3] != "passenger" else R.randint(6, 16)
        else:
            n = R.randint(1, 8)
        cand = [l for l in lock_ids if lock_ww[l] in vessel_home[vid_] and lock_len[l] >= v[6]]
        if not cand:
            continue
        w = [LOCKS[l - 1][10] for l in cand]
        if sum(w) == 0:
            continue
        for k in range(n):
            lid = R.choices(cand, w)[0]
            for attempt in range(20):
                if commercial:
                    d = R.randint(0, NDAYS - 1)
                else:
                    y = R.choice([0, 366])
                    d = y + R.randint(95, 290)      # April .. mid-October
                if d not in closed.get(lid, set()):
                    break
            else:
                continue
            pending.append((d, lid, vid_))
    pending.sort()
    pseq = {2024: 0, 2025: 0}
    vessel_by_id = {v[0]: v for v in vessels}
    for d, lid, vid_ in pending:
        v = vessel_by_id[vid_]
        dt = day(d)
        pseq[dt.year] += 1
        code = "PS-%d-%05d" % (dt.year, pseq[dt.year])
        direction = R.choice(["upstream", "downstream"])
        commercial = v[4] == 1
        if commercial and v[3] not in ("passenger",):
            laden = 1 if R.random() < 0.68 else 0
        else:
            laden = 0
        if laden:
            if v[3] == "tanker":
                ct = R.choices([c[0] for c in TANKC], [c[1] for c in TANKC])[0]
            else:
                ct = R.choices([c[0] for c in CARGO], [c[1] for c in CARGO])[0]
            cap = v[8]
            tonnes = int(cap * R.uniform(0.55, 0.98))
        else:
            ct, tonnes = None, None
        busy = LOCKS[lid - 1][10]
        summer = 4 <= dt.month <= 9
        wait = int(max(0, R.gauss(8 + busy * 2.2 + (10 if (summer and not commercial) else 0), 12)))
        if R.random() < 0.04:
            wait += R.randint(60, 150)
        lockage = int(R.uniform(12, 22) + LOCKS[lid - 1][5] * 1.4)
        kp = keepers_at.get(lid)
        if kp:
            kid = R.choice(kp)
            if staff_by_id[kid][7] > iso(dt):
                others = [k for k in kp if staff_by_id[k][7] <= iso(dt)]
                kid = R.choice(others) if others else None
        else:
            kid = None
        passages.append((None, code, lid, vid_, iso(dt), direction, wait, lockage, laden, ct, tonnes, kid))
    passages = [(i + 1,) + p[1:] for i, p in enumerate(passages)]
    rows["passages"] = passages

    # tolls: commercial passages at Belgian and French locks, pleasure craft in France
    tolls = []
    tseq = {2024: 0, 2025: 0}
    for p in passages:
        lid = p[2]
        v = vessel_by_id[p[3]]
        c = lock_country[lid]
        if c == "NL" or (c == "BE" and v[4] == 0):
            continue
        dt = datetime.date.fromisoformat(p[4])
        if v[4] == 1:
            if v[3] == "passenger":
                amount = 35.0 + v[6] * 0.6
            else:
                amount = 18.0 + (p[10] or 0) * (0.021 if c == "BE" else 0.034)
        else:
            amount = 6.5 + v[6] * 0.4
        amount = Money(amount)
        tseq[dt.year] += 1
        code = "TL-%d-%04d" % (dt.year, tseq[dt.year])
        due = dt + datetime.timedelta(days=30)
        late_cut = datetime.date(2025, 11, 20)
        if dt > late_cut:
            paid = 1 if R.random() < 0.45 else 0
        else:
            paid = 1 if R.random() < 0.95 else 0
        if paid:
            if v[4] == 0:
                method = R.choice(["card", "card", "cash"])
                pon = dt
            else:
                has_acct = [o for o in owners if o[0] == v[5]][0][8]
                method = "direct debit" if has_acct else R.choice(["bank transfer", "bank transfer", "card"])
                pon = dt + datetime.timedelta(days=R.randint(1, 28) if R.random() < 0.85 else R.randint(31, 70))
                if pon > D1:
                    pon = D1
            pon = iso(pon)
        else:
            method, pon = None, None
        tolls.append((len(tolls) + 1, code, p[0], amount, iso(dt), iso(due), paid, pon, method))
    rows["tolls"] = tolls

    # incidents
    incidents = []
    ICAT = [("gate collision", 20), ("mooring line failure", 18), ("fuel spill", 7),
            ("equipment failure", 22), ("injury", 8), ("near miss", 25)]
    pass_by_lock = {}
    for p in passages:
        pass_by_lock.setdefault(p[2], []).append(p)
    no_incident_locks = {18, 19, 10}
    reporters = [s[0] for s in staff if s[4] in ("lock keeper", "senior lock keeper", "shift supervisor")]
    # some staff never report anything
    silent = set(R.sample(reporters, 8))
    for k in range(172):
        lid = R.choices(lock_ids, [0 if l in no_incident_locks else max(1, LOCKS[l - 1][10]) for l in lock_ids])[0]
        cat = R.choices([c[0] for c in ICAT], [c[1] for c in ICAT])[0]
        c = lock_country[lid]
        if cat == "equipment failure":
            vid_ = None
            d = R.randint(0, NDAYS - 1)
        else:
            pl = pass_by_lock.get(lid, [])
            if not pl:
                continue
            p = R.choice(pl)
            vid_ = p[3]
            d = (datetime.date.fromisoformat(p[4]) - D0).days
        dt = day(d)
        sev = R.choices(["minor", "moderate", "serious"], [60, 30, 10])[0]
        if cat == "injury" and sev == "minor":
            sev = "moderate"
        if cat == "near miss":
            sev = "minor"
            damage = None
        elif cat == "injury":
            damage = None
        else:
            damage = Money({"minor": 400, "moderate": 3500, "serious": 18000}[sev] * R.uniform(0.4, 2.2))
        cand = [s for s in keepers_at.get(lid, []) if s not in silent and staff_by_id[s][7] <= iso(dt)]
        if not cand:
            cand = [s for s in reporters if staff_by_id[s][5] and lock_country[staff_by_id[s][5]] == c
                    and s not in silent and staff_by_id[s][7] <= iso(dt)]
        rep = R.choice(cand)
        if sev == "minor" and R.random() < 0.6:
            inv = None
        else:
            inv = R.choice(supervisors[c] + [managers[c]]) if cat != "equipment failure" else R.choice(techs[c])
        resolved = 1 if (dt < datetime.date(2025, 10, 1) and R.random() < 0.93) or R.random() < 0.35 else 0
        police = 1 if (cat in ("fuel spill", "injury") or sev == "serious") and R.random() < 0.7 else 0
        incidents.append([None, None, lid, vid_, iso(dt), cat, sev, damage, rep, inv, resolved, police])
    incidents.sort(key=lambda r: (r[4], r[2]))
    iseq = {2024: 0, 2025: 0}
    for i, r in enumerate(incidents):
        y = int(r[4][:4])
        iseq[y] += 1
        r[0] = i + 1
        r[1] = "IN-%d-%04d" % (y, iseq[y])
    rows["incidents"] = [tuple(r) for r in incidents]

    # shifts
    shifts = []
    for s in staff:
        if s[4] not in ("lock keeper", "senior lock keeper", "shift supervisor"):
            continue
        if s[0] == keepers[-1]:       # hired November 2025, not rostered yet
            continue
        hired = datetime.date.fromisoformat(s[7])
        start = max(0, (hired - D0).days)
        n = R.randint(45, 80) if s[9] == 0 else R.randint(22, 40)
        days = sorted(R.sample(range(start, NDAYS), min(n, NDAYS - start)))
        c = lock_country[s[5]]
        for d in days:
            lid = s[5]
            if R.random() < 0.12:
                others = [l for l in locks_by_country[c] if l != lid and l != 20]
                lid = R.choice(others)
            if d in closed.get(lid, set()):
                lid = s[5]
                if d in closed.get(lid, set()):
                    continue
            st = R.choices(["early", "late", "night"], [45, 40, 15])[0]
            if st == "night" and not LOCKS[lid - 1][9]:
                st = "late"
            hours = 6.0 if s[9] else 8.0
            absent = 1 if R.random() < 0.035 else 0
            ot = 0 if absent else (R.choice([15, 30, 45, 60, 90, 120]) if R.random() < 0.2 else 0)
            shifts.append((None, s[0], lid, iso(day(d)), st, hours, ot, absent))
    shifts.sort(key=lambda r: (r[3], r[1]))
    shifts = [(i + 1,) + r[1:] for i, r in enumerate(shifts)]
    rows["shifts"] = shifts

    write(rows)


DDL = """
CREATE TABLE waterways (
    waterway_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    waterway_code TEXT NOT NULL UNIQUE,
    cemt_class TEXT NOT NULL,
    length_km REAL NOT NULL,
    is_tidal INTEGER NOT NULL,
    speed_limit_kmh REAL NOT NULL
);

CREATE TABLE locks (
    lock_id INTEGER PRIMARY KEY,
    lock_code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    waterway_id INTEGER NOT NULL,
    country TEXT NOT NULL,
    chamber_length_m REAL NOT NULL,
    chamber_width_m REAL NOT NULL,
    lift_height_m REAL NOT NULL,
    opened_year INTEGER NOT NULL,
    is_automated INTEGER NOT NULL,
    has_pleasure_chamber INTEGER NOT NULL,
    is_open_24h INTEGER NOT NULL,
    FOREIGN KEY (waterway_id) REFERENCES waterways (waterway_id)
);

CREATE TABLE bridges (
    bridge_id INTEGER PRIMARY KEY,
    bridge_code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    waterway_id INTEGER NOT NULL,
    bridge_type TEXT NOT NULL,
    clearance_m REAL NOT NULL,
    is_movable INTEGER NOT NULL,
    carries_railway INTEGER NOT NULL,
    controlled_from_lock_id INTEGER,
    FOREIGN KEY (waterway_id) REFERENCES waterways (waterway_id),
    FOREIGN KEY (controlled_from_lock_id) REFERENCES locks (lock_id)
);

CREATE TABLE staff (
    staff_id INTEGER PRIMARY KEY,
    employee_code TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    role TEXT NOT NULL,
    home_lock_id INTEGER,
    supervisor_id INTEGER,
    hired_on TEXT NOT NULL,
    hourly_rate_eur NUMERIC(10,2) NOT NULL,
    is_part_time INTEGER NOT NULL,
    is_first_aid_certified INTEGER NOT NULL,
    FOREIGN KEY (home_lock_id) REFERENCES locks (lock_id),
    FOREIGN KEY (supervisor_id) REFERENCES staff (staff_id)
);

CREATE TABLE owners (
    owner_id INTEGER PRIMARY KEY,
    owner_code TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    company_name TEXT,
    country TEXT NOT NULL,
    email TEXT NOT NULL,
    registered_on TEXT NOT NULL,
    has_toll_account INTEGER NOT NULL
);

CREATE TABLE vessels (
    vessel_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    eni_number TEXT UNIQUE,
    vessel_type TEXT NOT NULL,
    is_commercial INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    length_m REAL NOT NULL,
    beam_m REAL NOT NULL,
    deadweight_t INTEGER,
    built_year INTEGER NOT NULL,
    flag_country TEXT NOT NULL,
    has_ais INTEGER NOT NULL,
    FOREIGN KEY (owner_id) REFERENCES owners (owner_id)
);

CREATE TABLE closures (
    closure_id INTEGER PRIMARY KEY,
    closure_code TEXT NOT NULL UNIQUE,
    lock_id INTEGER NOT NULL,
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL,
    reason TEXT NOT NULL,
    is_planned INTEGER NOT NULL,
    cost_eur NUMERIC(10,2),
    approved_by_id INTEGER NOT NULL,
    lead_technician_id INTEGER,
    FOREIGN KEY (lock_id) REFERENCES locks (lock_id),
    FOREIGN KEY (approved_by_id) REFERENCES staff (staff_id),
    FOREIGN KEY (lead_technician_id) REFERENCES staff (staff_id)
);

CREATE TABLE passages (
    passage_id INTEGER PRIMARY KEY,
    passage_code TEXT NOT NULL UNIQUE,
    lock_id INTEGER NOT NULL,
    vessel_id INTEGER NOT NULL,
    passage_date TEXT NOT NULL,
    direction TEXT NOT NULL,
    wait_min INTEGER NOT NULL,
    lockage_min INTEGER NOT NULL,
    is_laden INTEGER NOT NULL,
    cargo_type TEXT,
    cargo_t INTEGER,
    keeper_id INTEGER,
    FOREIGN KEY (lock_id) REFERENCES locks (lock_id),
    FOREIGN KEY (vessel_id) REFERENCES vessels (vessel_id),
    FOREIGN KEY (keeper_id) REFERENCES staff (staff_id)
);

CREATE TABLE tolls (
    toll_id INTEGER PRIMARY KEY,
    invoice_code TEXT NOT NULL UNIQUE,
    passage_id INTEGER NOT NULL UNIQUE,
    amount_eur NUMERIC(10,2) NOT NULL,
    issued_on TEXT NOT NULL,
    due_on TEXT NOT NULL,
    paid INTEGER NOT NULL,
    paid_on TEXT,
    payment_method TEXT,
    FOREIGN KEY (passage_id) REFERENCES passages (passage_id)
);

CREATE TABLE incidents (
    incident_id INTEGER PRIMARY KEY,
    incident_code TEXT NOT NULL UNIQUE,
    lock_id INTEGER NOT NULL,
    vessel_id INTEGER,
    incident_date TEXT NOT NULL,
    category TEXT NOT NULL,
    severity TEXT NOT NULL,
    damage_eur NUMERIC(10,2),
    reported_by_id INTEGER NOT NULL,
    investigated_by_id INTEGER,
    resolved INTEGER NOT NULL,
    was_police_notified INTEGER NOT NULL,
    FOREIGN KEY (lock_id) REFERENCES locks (lock_id),
    FOREIGN KEY (vessel_id) REFERENCES vessels (vessel_id),
    FOREIGN KEY (reported_by_id) REFERENCES staff (staff_id),
    FOREIGN KEY (investigated_by_id) REFERENCES staff (staff_id)
);

CREATE TABLE shifts (
    shift_id INTEGER PRIMARY KEY,
    staff_id INTEGER NOT NULL,
    lock_id INTEGER NOT NULL,
    shift_date TEXT NOT NULL,
    shift_type TEXT NOT NULL,
    scheduled_hours REAL NOT NULL,
    overtime_min INTEGER NOT NULL,
    was_absent INTEGER NOT NULL,
    FOREIGN KEY (staff_id) REFERENCES staff (staff_id),
    FOREIGN KEY (lock_id) REFERENCES locks (lock_id)
);
"""

ORDER = ["waterways", "locks", "bridges", "staff", "owners", "vessels", "closures", "passages",
         "tolls", "incidents", "shifts"]


def write(rows):
    out = ["-- canal_locks: a canal and river-navigation authority (NL, BE, FR), 2024-2025.",
           "-- Generated by gen_canal_locks.py; do not edit by hand.", DDL.strip(), ""]
    for t in ORDER:
        for r in rows[t]:
            out.append("INSERT INTO %s VALUES (%s);" % (t, ", ".join(q(v) for v in r)))
        out.append("")
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
