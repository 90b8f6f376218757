#!/usr/bin/env python3
"""Deterministic generator for textile_mill.sql.

A group of weaving and dyeing mills in Portugal, Italy and Turkey, 2024-2025: mills, looms,
staff (weavers, technicians, dyers, inspectors, supervisors, managers), yarn suppliers and
yarn lots, fabric designs, customers, orders and order lines, production runs on looms, dye
batches, quality inspections, shipments and invoices.

Standard library only.  Usage: python3 gen_textile_mill.py  (writes textile_mill.sql next to it)
"""
import datetime as dt
import os
import random

R = random.Random(20240917)
HERE = os.path.dirname(os.path.abspath(__file__))
TODAY = dt.date(2025, 12, 31)
START = dt.date(2024, 1, 1)


def d2s(d):
    return None if d is None else d.isoformat()


def q(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(round(v, 4))
    if isinstance(v, dt.date):
        return "'" + v.isoformat() + "'"
    return "'" + str(v).replace("'", "''") + "'"


def money(x):
    return round(x + 1e-9, 2)


def weekday_on_or_after(d):
    while d.weekday() >= 5:
        d += dt.timedelta(days=1)
    return d


def rand_date(a, b):
    return a + dt.timedelta(days=R.randint(0, (b - a).days))


# ---------------------------------------------------------------- DDL
DDL = """
CREATE TABLE mills (
    mill_id INTEGER PRIMARY KEY,
    mill_code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    founded_year INTEGER NOT NULL,
    floor_area_m2 INTEGER NOT NULL,
    has_dyehouse INTEGER NOT NULL
);

CREATE TABLE staff (
    staff_id INTEGER PRIMARY KEY,
    employee_code TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    mill_id INTEGER NOT NULL,
    role TEXT NOT NULL,
    hire_date TEXT NOT NULL,
    supervisor_id INTEGER,
    hourly_rate_eur NUMERIC(10,2) NOT NULL,
    is_full_time INTEGER NOT NULL,
    FOREIGN KEY (mill_id) REFERENCES mills (mill_id),
    FOREIGN KEY (supervisor_id) REFERENCES staff (staff_id)
);

CREATE TABLE looms (
    loom_id INTEGER PRIMARY KEY,
    loom_code TEXT NOT NULL UNIQUE,
    mill_id INTEGER NOT NULL,
    loom_type TEXT NOT NULL,
    manufacturer TEXT NOT NULL,
    reed_width_cm INTEGER NOT NULL,
    max_speed_rpm INTEGER NOT NULL,
    installed_date TEXT NOT NULL,
    last_serviced_date TEXT,
    is_active INTEGER NOT NULL,
    FOREIGN KEY (mill_id) REFERENCES mills (mill_id)
);

CREATE TABLE suppliers (
    supplier_id INTEGER PRIMARY KEY,
    supplier_code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    country TEXT NOT NULL,
    main_fiber TEXT NOT NULL,
    lead_time_days INTEGER NOT NULL,
    is_gots_certified INTEGER NOT NULL
);

CREATE TABLE yarn_lots (
    lot_id INTEGER PRIMARY KEY,
    lot_code TEXT NOT NULL UNIQUE,
    supplier_id INTEGER NOT NULL,
    mill_id INTEGER NOT NULL,
    fiber TEXT NOT NULL,
    yarn_count_nm INTEGER NOT NULL,
    received_date TEXT NOT NULL,
    weight_kg NUMERIC(10,2) NOT NULL,
    price_per_kg_eur NUMERIC(10,2) NOT NULL,
    is_organic INTEGER NOT NULL,
    was_rejected INTEGER NOT NULL,
    FOREIGN KEY (supplier_id) REFERENCES suppliers (supplier_id),
    FOREIGN KEY (mill_id) REFERENCES mills (mill_id)
);

CREATE TABLE designs (
    design_id INTEGER PRIMARY KEY,
    design_code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    weave_type TEXT NOT NULL,
    main_fiber TEXT NOT NULL,
    weight_gsm INTEGER NOT NULL,
    list_price_per_m_eur NUMERIC(10,2) NOT NULL,
    introduced_date TEXT NOT NULL,
    is_discontinued INTEGER NOT NULL
);

CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    customer_code TEXT NOT NULL UNIQUE,
    company_name TEXT NOT NULL,
    country TEXT NOT NULL,
    segment TEXT NOT NULL,
    contact_first_name TEXT NOT NULL,
    contact_last_name TEXT NOT NULL,
    credit_limit_eur NUMERIC(10,2) NOT NULL,
    is_key_account INTEGER NOT NULL
);

CREATE TABLE orders (
    order_id INTEGER PRIMARY KEY,
    order_code TEXT NOT NULL UNIQUE,
    customer_id INTEGER NOT NULL,
    mill_id INTEGER NOT NULL,
    placed_date TEXT NOT NULL,
    required_date TEXT NOT NULL,
    status TEXT NOT NULL,
    is_rush INTEGER NOT NULL,
    FOREIGN KEY (customer_id) REFERENCES customers (customer_id),
    FOREIGN KEY (mill_id) REFERENCES mills (mill_id)
);

CREATE TABLE order_lines (
    line_id INTEGER PRIMARY KEY,
    order_id INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    design_id INTEGER NOT NULL,
    color TEXT NOT NULL,
    quantity_m INTEGER NOT NULL,
    unit_price_eur NUMERIC(10,2) NOT NULL,
    FOREIGN KEY (order_id) REFERENCES orders (order_id),
    FOREIGN KEY (design_id) REFERENCES designs (design_id)
);

CREATE TABLE production_runs (
    run_id INTEGER PRIMARY KEY,
    run_code TEXT NOT NULL UNIQUE,
    line_id INTEGER NOT NULL,
    loom_id INTEGER NOT NULL,
    weaver_id INTEGER NOT NULL,
    technician_id INTEGER NOT NULL,
    yarn_lot_id INTEGER NOT NULL,
    shift TEXT NOT NULL,
    started_date TEXT NOT NULL,
    finished_date TEXT,
    woven_m NUMERIC(10,2),
    downtime_min INTEGER NOT NULL,
    FOREIGN KEY (line_id) REFERENCES order_lines (line_id),
    FOREIGN KEY (loom_id) REFERENCES looms (loom_id),
    FOREIGN KEY (weaver_id) REFERENCES staff (staff_id),
    FOREIGN KEY (technician_id) REFERENCES staff (staff_id),
    FOREIGN KEY (yarn_lot_id) REFERENCES yarn_lots (lot_id)
);

CREATE TABLE dye_batches (
    batch_id INTEGER PRIMARY KEY,
    batch_code TEXT NOT NULL UNIQUE,
    run_id INTEGER NOT NULL,
    dyer_id INTEGER NOT NULL,
    dyed_date TEXT NOT NULL,
    color TEXT NOT NULL,
    dye_class TEXT NOT NULL,
    fabric_kg NUMERIC(10,2) NOT NULL,
    water_used_l INTEGER NOT NULL,
    temperature_c INTEGER NOT NULL,
    was_redyed INTEGER NOT NULL,
    FOREIGN KEY (run_id) REFERENCES production_runs (run_id),
    FOREIGN KEY (dyer_id) REFERENCES staff (staff_id)
);

CREATE TABLE inspections (
    inspection_id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    inspector_id INTEGER NOT NULL,
    inspected_date TEXT NOT NULL,
    inspected_m NUMERIC(10,2) NOT NULL,
    defect_count INTEGER NOT NULL,
    grade TEXT NOT NULL,
    passed INTEGER NOT NULL,
    FOREIGN KEY (run_id) REFERENCES production_runs (run_id),
    FOREIGN KEY (inspector_id) REFERENCES staff (staff_id)
);

CREATE TABLE shipments (
    shipment_id INTEGER PRIMARY KEY,
    shipment_code TEXT NOT NULL UNIQUE,
    order_id INTEGER NOT NULL,
    carrier TEXT NOT NULL,
    shipped_date TEXT NOT NULL,
    delivered_date TEXT,
    roll_count INTEGER NOT NULL,
    gross_weight_kg NUMERIC(10,2) NOT NULL,
    freight_cost_eur NUMERIC(10,2) NOT NULL,
    was_late INTEGER,
    FOREIGN KEY (order_id) REFERENCES orders (order_id)
);

CREATE TABLE invoices (
    invoice_id INTEGER PRIMARY KEY,
    invoice_number TEXT NOT NULL UNIQUE,
    order_id INTEGER NOT NULL,
    issued_date TEXT NOT NULL,
    due_date TEXT NOT NULL,
    amount_eur NUMERIC(10,2) NOT NULL,
    paid INTEGER NOT NULL,
    paid_date TEXT,
    FOREIGN KEY (order_id) REFERENCES orders (order_id)
);
"""

TABLE_COLS = {}
ROWS = {}


def table(name, cols):
    TABLE_COLS[name] = cols
    ROWS[name] = []


def add(name, row):
    assert len(row) == len(TABLE_COLS[name]), (name, row)
    ROWS[name].append(row)


# ---------------------------------------------------------------- reference lists
NAMES = {
    "Portugal": (
        ["João", "Maria", "Ana", "Pedro", "Rui", "Carla", "Sofia", "Tiago", "Inês", "Miguel",
         "Helena", "Nuno", "Filipa", "Bruno", "Catarina", "Ricardo", "Joana", "Hugo", "Marta",
         "Diogo"],
        ["Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa", "Rodrigues", "Martins",
         "Sousa", "Fernandes", "Gonçalves", "Lopes", "Marques", "Almeida", "Ribeiro", "Carvalho",
         "Teixeira", "Moreira", "Pinto", "Cunha"]),
    "Italy": (
        ["Giulia", "Marco", "Francesca", "Luca", "Alessandro", "Chiara", "Matteo", "Elena",
         "Davide", "Sara", "Paolo", "Federica", "Stefano", "Valentina", "Andrea", "Roberta",
         "Simone", "Ilaria", "Giorgio", "Martina"],
        ["Rossi", "Bianchi", "Colombo", "Ferrari", "Romano", "Galli", "Conti", "Ricci", "Bruno",
         "Greco", "Marino", "Fontana", "Moretti", "Barbieri", "Lombardi", "Rinaldi", "Caruso",
         "Gatti", "Pellegrini", "Villa"]),
    "Turkey": (
        ["Mehmet", "Ayşe", "Mustafa", "Fatma", "Emre", "Zeynep", "Burak", "Elif", "Murat",
         "Hatice", "Can", "Selin", "Kemal", "Derya", "Oğuz", "Esra", "Hakan", "Gül", "Serkan",
         "Merve"],
        ["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız", "Aydın", "Öztürk", "Arslan",
         "Doğan", "Kılıç", "Aslan", "Koç", "Kurt", "Özdemir", "Polat", "Erdoğan", "Güneş",
         "Acar", "Bulut"]),
}
OTHER_NAMES = {
    "Germany": (["Anna", "Jonas", "Lena", "Felix", "Katrin", "Tobias"],
                ["Müller", "Schmidt", "Weber", "Wagner", "Becker", "Hoffmann"]),
    "France": (["Camille", "Julien", "Claire", "Antoine", "Manon", "Olivier"],
               ["Martin", "Bernard", "Dubois", "Laurent", "Lefèvre", "Moreau"]),
    "United Kingdom": (["Oliver", "Emily", "James", "Charlotte", "Harry", "Sophie"],
                       ["Smith", "Taylor", "Brown", "Wilson", "Evans", "Clarke"]),
    "Spain": (["Lucía", "Javier", "Carmen", "Pablo", "Elena", "Sergio"],
              ["García", "López", "Martínez", "Sánchez", "Navarro", "Ruiz"]),
    "Netherlands": (["Sanne", "Daan", "Femke", "Bram", "Lotte", "Jeroen"],
                    ["de Vries", "Jansen", "Bakker", "Visser", "Smit", "Mulder"]),
    "Sweden": (["Elsa", "Erik", "Maja", "Lars", "Ingrid", "Nils"],
               ["Andersson", "Johansson", "Karlsson", "Lindqvist", "Nilsson", "Berg"]),
    "United States": (["Emma", "Michael", "Olivia", "Daniel", "Ashley", "Ryan"],
                      ["Johnson", "Miller", "Davis", "Anderson", "Thompson", "Harris"]),
    "Japan": (["Yuki", "Haruto", "Aiko", "Kenji", "Sakura", "Takumi"],
              ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito"]),
}

MILLS = [
    # code, name, city, country, founded, area, dyehouse, fiber weights
    ("PT-GMR", "Tecelagem do Ave", "Guimarães", "Portugal", 1962, 18500, 1,
     {"cotton": 6, "linen": 3, "viscose": 2, "polyester": 1}),
    ("PT-COV", "Lanifícios da Serra", "Covilhã", "Portugal", 1948, 14200, 1,
     {"wool": 8, "polyester": 1, "linen": 1}),
    ("IT-BIE", "Lanificio Valle Cervo", "Biella", "Italy", 1921, 21000, 1,
     {"wool": 8, "silk": 1, "linen": 1}),
    ("IT-PRA", "Tessitura Bisenzio", "Prato", "Italy", 1975, 9800, 0,
     {"wool": 4, "polyester": 3, "viscose": 3, "cotton": 2}),
    ("IT-COM", "Seteria Lariana", "Como", "Italy", 1934, 7600, 1,
     {"silk": 7, "viscose": 3, "polyester": 1}),
    ("TR-BUR", "Uludağ Dokuma", "Bursa", "Turkey", 1988, 26000, 0,
     {"polyester": 5, "viscose": 4, "cotton": 3}),
    ("TR-DEN", "Pamukkale Tekstil", "Denizli", "Turkey", 1993, 23500, 1,
     {"cotton": 9, "linen": 2, "polyester": 1}),
]

FIBER_PRICE = {"cotton": (4.2, 7.5), "wool": (12.0, 24.0), "linen": (9.0, 15.0),
               "silk": (46.0, 72.0), "polyester": (2.1, 3.6), "viscose": (3.4, 5.8)}
FIBER_COUNT = {"cotton": (34, 100), "wool": (28, 80), "linen": (14, 40), "silk": (80, 140),
               "polyester": (40, 120), "viscose": (40, 90)}
FIBER_GSM = {"cotton": (110, 320), "wool": (180, 420), "linen": (140, 300), "silk": (60, 140),
             "polyester": (90, 260), "viscose": (90, 220)}
FIBER_PRICE_M = {"cotton": (6.5, 14.0), "wool": (18.0, 42.0), "linen": (11.0, 22.0),
                 "silk": (28.0, 65.0), "polyester": (4.5, 9.5), "viscose": (6.0, 12.5)}
DYE_CLASS = {"cotton": ["reactive", "reactive", "reactive", "vat"],
             "linen": ["reactive", "vat"], "viscose": ["reactive"],
             "wool": ["acid"], "silk": ["acid"], "polyester": ["disperse"]}
DYE_TEMP = {"reactive": 60, "vat": 80, "acid": 98, "disperse": 130}

COLORS = ["Navy", "Charcoal", "Ecru", "Bordeaux", "Olive", "Sky Blue", "Sand", "Black",
          "Terracotta", "Forest Green", "Ivory", "Mustard", "Camel", "Dusty Rose"]
COLOR_W = [10, 9, 7, 5, 5, 4, 6, 9, 4, 4, 5, 3, 4, 3]
UNDYED = {"Ecru"}

# ---------------------------------------------------------------- mills
table("mills", ["mill_id", "mill_code", "name", "city", "country", "founded_year",
                "floor_area_m2", "has_dyehouse"])
for i, m in enumerate(MILLS, 1):
    add("mills", [i, m[0], m[1], m[2], m[3], m[4], m[5], m[6]])
MILL_COUNTRY = {i: m[3] for i, m in enumerate(MILLS, 1)}
MILL_DYE = {i: m[6] for i, m in enumerate(MILLS, 1)}
MILL_FIBERS = {i: m[7] for i, m in enumerate(MILLS, 1)}

# ---------------------------------------------------------------- staff
table("staff", ["staff_id", "employee_code", "first_name", "last_name", "mill_id", "role",
                "hire_date", "supervisor_id", "hourly_rate_eur", "is_full_time"])
RATE = {"Portugal": 1.0, "Italy": 1.45, "Turkey": 0.62}
ROLE_BASE = {"manager": 24.0, "supervisor": 16.5, "technician": 13.5, "dyer": 11.5,
             "inspector": 11.0, "weaver": 10.0}
used_names = set()
staff_by_mill_role = {}
staff_hire = {}
sid = 0


def new_person(country):
    fn, ln = NAMES[country]
    while True:
        n = (R.choice(fn), R.choice(ln))
        if n not in used_names:
            used_names.add(n)
            return n


for mill_id in range(1, len(MILLS) + 1):
    country = MILL_COUNTRY[mill_id]
    n_weavers = R.randint(9, 13)
    plan = [("manager", 1), ("supervisor", 2), ("technician", R.randint(3, 4)),
            ("inspector", R.randint(2, 3)), ("weaver", n_weavers)]
    if MILL_DYE[mill_id]:
        plan.insert(3, ("dyer", R.randint(2, 3)))
    sups = []
    manager = None
    for role, n in plan:
        for k in range(n):
            sid += 1
            fn, ln = new_person(country)
            if role == "manager":
                hire = rand_date(dt.date(2003, 1, 1), dt.date(2016, 12, 31))
                sup = None
                manager = sid
            elif role == "supervisor":
                hire = rand_date(dt.date(2006, 1, 1), dt.date(2020, 12, 31))
                sup = manager
                sups.append(sid)
            else:
                r = R.random()
                if r < 0.16:
                    hire = rand_date(dt.date(2024, 1, 8), dt.date(2025, 6, 30))
                else:
                    hire = rand_date(dt.date(2008, 1, 1), dt.date(2023, 12, 20))
                sup = sups[(sid) % len(sups)]
            # a couple of weavers joined in December 2025 and have not yet run a loom
            if role == "weaver" and k == n - 1 and mill_id in (2, 6):
                hire = dt.date(2025, 12, R.randint(1, 12))
            hire = weekday_on_or_after(hire)
            rate = money(ROLE_BASE[role] * RATE[country] * R.uniform(0.92, 1.12))
            full = 0 if (role in ("weaver", "inspector") and R.random() < 0.15) else 1
            add("staff", [sid, "EMP-%04d" % (1000 + sid), fn, ln, mill_id, role, d2s(hire),
                          sup, rate, full])
            staff_by_mill_role.setdefault((mill_id, role), []).append(sid)
            staff_hire[sid] = hire

# ---------------------------------------------------------------- looms
table("looms", ["loom_id", "loom_code", "mill_id", "loom_type", "manufacturer",
                "reed_width_cm", "max_speed_rpm", "installed_date", "last_serviced_date",
                "is_active"])
LOOM_MAKERS = {"rapier": ["Picanol", "Itema", "Dornier", "Vamatex"],
               "air-jet": ["Picanol", "Toyota", "Tsudakoma"],
               "jacquard": ["Stäubli", "Bonas"],
               "projectile": ["Sulzer"],
               "water-jet": ["Tsudakoma", "Toyota"]}
LOOM_SPEED = {"rapier": (480, 650), "air-jet": (800, 1200), "jacquard": (400, 600),
              "projectile": (300, 420), "water-jet": (700, 1000)}
MILL_LOOM_TYPES = {1: {"rapier": 4, "air-jet": 4, "jacquard": 1},
                   2: {"rapier": 5, "projectile": 2, "jacquard": 1},
                   3: {"rapier": 5, "jacquard": 2, "projectile": 1},
                   4: {"rapier": 4, "air-jet": 3},
                   5: {"rapier": 3, "jacquard": 4},
                   6: {"air-jet": 5, "water-jet": 3, "rapier": 1},
                   7: {"air-jet": 6, "rapier": 3}}
looms_by_mill = {}
loom_usable = {}
lid = 0
for mill_id in range(1, len(MILLS) + 1):
    n = R.randint(9, 14)
    types = MILL_LOOM_TYPES[mill_id]
    for k in range(n):
        lid += 1
        lt = R.choices(list(types), list(types.values()))[0]
        maker = R.choice(LOOM_MAKERS[lt])
        width = R.choice([190, 190, 220, 220, 250, 280, 340])
        speed = R.randint(*LOOM_SPEED[lt]) // 5 * 5
        installed = rand_date(dt.date(1998, 1, 1), dt.date(2023, 6, 30))
        active = 1
        usable = True
        if k == n - 1 and mill_id in (1, 4, 6):
            # retired loom, never used in 2024-2025
            active = 0
            usable = False
            installed = rand_date(dt.date(1990, 1, 1), dt.date(2000, 12, 31))
        elif k == n - 2 and mill_id in (3, 7):
            # brand new loom commissioned in December 2025
            installed = dt.date(2025, 12, R.randint(8, 19))
            usable = False
        if not active:
            serviced = None
        elif R.random() < 0.1:
            serviced = None
        else:
            serviced = rand_date(max(installed, dt.date(2025, 1, 1)), dt.date(2025, 12, 20))
            if serviced < installed:
                serviced = installed
        if installed.year == 2025:
            serviced = None
        add("looms", [lid, "LM-%s-%02d" % (MILLS[mill_id - 1][0].split("-")[1], k + 1),
                      mill_id, lt, maker, width, speed, d2s(installed), d2s(serviced), active])
        if usable:
            looms_by_mill.setdefault(mill_id, []).append(lid)

# ---------------------------------------------------------------- suppliers
table("suppliers", ["supplier_id", "supplier_code", "name", "country", "main_fiber",
                    "lead_time_days", "is_gots_certified"])
SUPPLIERS = [
    ("Fiação Vale do Sousa", "Portugal", "cotton", 12, 1, True),
    ("Filatura di Pollone", "Italy", "wool", 18, 0, True),
    ("Nile Delta Spinning", "Egypt", "cotton", 35, 1, True),
    ("Ege Pamuk İplik", "Turkey", "cotton", 10, 1, True),
    ("Merino Fibres Ltd", "Australia", "wool", 55, 0, True),
    ("Lino Fiandre", "Belgium", "linen", 21, 0, True),
    ("Zhejiang Silk Group", "China", "silk", 45, 0, True),
    ("Seta Comense", "Italy", "silk", 14, 0, True),
    ("Kordsa Poliester", "Turkey", "polyester", 9, 0, True),
    ("Lenzing Fibers Trading", "Austria", "viscose", 20, 1, True),
    ("Gujarat Cotspin", "India", "cotton", 48, 1, True),
    ("Andes Alpaca Hilados", "Peru", "wool", 60, 0, True),
    ("Normandie Lin", "France", "linen", 18, 1, True),
    ("Trevira Garn", "Germany", "polyester", 16, 0, True),
    ("Tashkent Textile Yarns", "Uzbekistan", "cotton", 40, 0, False),
    ("Canterbury Wool Co", "New Zealand", "wool", 62, 1, False),
    ("Bangladesh Viscose Mills", "Bangladesh", "viscose", 42, 0, False),
]
supp_by_fiber = {}
for i, s in enumerate(SUPPLIERS, 1):
    add("suppliers", [i, "SUP-%03d" % (100 + i * 7), s[0], s[1], s[2], s[3], s[4]])
    if s[5]:
        supp_by_fiber.setdefault(s[2], []).append(i)
SUPP_GOTS = {i: s[4] for i, s in enumerate(SUPPLIERS, 1)}
SUPP_COUNTRY = {i: s[1] for i, s in enumerate(SUPPLIERS, 1)}

# ---------------------------------------------------------------- yarn lots
table("yarn_lots", ["lot_id", "lot_code", "supplier_id", "mill_id", "fiber", "yarn_count_nm",
                    "received_date", "weight_kg", "price_per_kg_eur", "is_organic",
                    "was_rejected"])
lots = []  # (lot_id, mill, fiber, received, rejected)
lot_seq = {2024: 0, 2025: 0}
raw_lots = []
for mill_id in range(1, len(MILLS) + 1):
    fibers = MILL_FIBERS[mill_id]
    n = R.randint(55, 75)
    for k in range(n):
        fiber = R.choices(list(fibers), list(fibers.values()))[0]
        rec = weekday_on_or_after(rand_date(dt.date(2023, 12, 1), dt.date(2025, 12, 19)))
        if rec.year < 2024:
            rec = weekday_on_or_after(rand_date(START, dt.date(2024, 2, 28)))
        raw_lots.append((rec, mill_id, fiber))
# guarantee every mill has an early lot for each of its fibers
for mill_id in range(1, len(MILLS) + 1):
    for fiber in MILL_FIBERS[mill_id]:
        raw_lots.append((weekday_on_or_after(dt.date(2024, 1, R.randint(2, 5))), mill_id, fiber))
raw_lots.sort()
for lot_id, (rec, mill_id, fiber) in enumerate(raw_lots, 1):
    sup = R.choice(supp_by_fiber[fiber])
    lot_seq[rec.year] += 1
    code = "YL-%d-%04d" % (rec.year, lot_seq[rec.year])
    cnt = R.randint(*FIBER_COUNT[fiber])
    if fiber == "silk":
        w = round(R.uniform(40, 260), 1)
    else:
        w = round(R.uniform(180, 2400), 1)
    lo, hi = FIBER_PRICE[fiber]
    price = money(R.uniform(lo, hi) * (1.0 + 0.04 * (rec.year - 2024)))
    organic = 1 if (SUPP_GOTS[sup] and fiber in ("cotton", "linen", "wool") and R.random() < 0.6) else 0
    if organic:
        price = money(price * 1.18)
    rejected = 1 if R.random() < 0.045 else 0
    add("yarn_lots", [lot_id, code, sup, mill_id, fiber, cnt, d2s(rec), w, price, organic, rejected])
    lots.append((lot_id, mill_id, fiber, rec, rejected))

# ---------------------------------------------------------------- designs
table("designs", ["design_id", "design_code", "name", "weave_type", "main_fiber", "weight_gsm",
                  "list_price_per_m_eur", "introduced_date", "is_discontinued"])
PLACES = ["Douro", "Minho", "Estrela", "Cervo", "Lario", "Bisenzio", "Uludağ", "Pamukkale",
          "Arno", "Tejo", "Ege", "Bellagio", "Sintra", "Oropa", "Kapadokya", "Alentejo",
          "Mondego", "Brenta", "Efes", "Nazaré", "Varenna", "Marmara", "Porto", "Toscana"]
WEAVE_WORD = {"plain": ["Poplin", "Canvas", "Voile", "Batiste", "Chambray", "Taffeta"],
              "twill": ["Twill", "Gabardine", "Denim", "Drill", "Serge"],
              "herringbone": ["Herringbone", "Chevron"],
              "satin": ["Satin", "Sateen", "Charmeuse", "Duchesse"],
              "jacquard": ["Jacquard", "Damask", "Brocade", "Matelassé"],
              "dobby": ["Dobby", "Piqué", "Birdseye", "Oxford"]}
FIBER_WEAVES = {"cotton": ["plain", "twill", "dobby", "satin", "jacquard"],
                "wool": ["twill", "herringbone", "plain", "dobby", "jacquard"],
                "linen": ["plain", "twill", "herringbone"],
                "silk": ["satin", "plain", "jacquard", "twill"],
                "polyester": ["plain", "twill", "satin", "dobby"],
                "viscose": ["plain", "satin", "twill", "jacquard"]}
designs = []
used_dnames = set()
did = 0
for fiber, n in [("cotton", 16), ("wool", 16), ("linen", 7), ("silk", 8), ("polyester", 9),
                 ("viscose", 9)]:
    for k in range(n):
        did += 1
        weave = R.choice(FIBER_WEAVES[fiber])
        while True:
            nm = R.choice(PLACES) + " " + R.choice(WEAVE_WORD[weave])
            if nm not in used_dnames:
                used_dnames.add(nm)
                break
        gsm = R.randint(*FIBER_GSM[fiber])
        lp = money(R.uniform(*FIBER_PRICE_M[fiber]) * (1.25 if weave == "jacquard" else 1.0))
        r = R.random()
        if r < 0.08:
            intro = rand_date(dt.date(2025, 11, 3), dt.date(2025, 12, 15))  # too new to order
        elif r < 0.25:
            intro = rand_date(dt.date(2024, 2, 1), dt.date(2025, 6, 30))
        else:
            intro = rand_date(dt.date(2012, 1, 1), dt.date(2023, 10, 31))
        intro = weekday_on_or_after(intro)
        disc = 1 if (intro.year < 2020 and R.random() < 0.3) else 0
        designs.append(dict(id=did, fiber=fiber, weave=weave, gsm=gsm, price=lp, intro=intro,
                            disc=disc, never=(intro >= dt.date(2025, 11, 1) or
                                              (disc and R.random() < 0.35))))
        add("designs", [did, "DS-%04d" % (did * 13 + 200), nm, weave, fiber, gsm, lp, d2s(intro),
                        disc])

# ---------------------------------------------------------------- customers
table("customers", ["customer_id", "customer_code", "company_name", "country", "segment",
                    "contact_first_name", "contact_last_name", "credit_limit_eur",
                    "is_key_account"])
CUST_COUNTRIES = [("Germany", 14), ("France", 12), ("United Kingdom", 10), ("Spain", 9),
                  ("Netherlands", 6), ("Sweden", 5), ("United States", 8), ("Japan", 4),
                  ("Portugal", 7), ("Italy", 9), ("Turkey", 6)]
SEGMENTS = [("fashion", 10), ("home textiles", 6), ("upholstery", 4), ("workwear", 3),
            ("automotive", 2)]
STEMS = ["Aurora", "Belvedere", "Cobalt", "Dune", "Elmwood", "Fjord", "Garnet", "Harbor",
         "Indigo", "Juniper", "Kestrel", "Lumen", "Marlow", "Nova", "Orchid", "Pinewood",
         "Quartz", "Rowan", "Saffron", "Tamarind", "Umber", "Velour", "Willow", "Zephyr",
         "Alder", "Birch", "Cedar", "Driftwood", "Ember", "Flint", "Heron", "Iris", "Jasper",
         "Linden", "Maple", "Nimbus", "Opal", "Pebble", "Russet", "Sable", "Thistle", "Vale"]
SEG_WORD = {"fashion": ["Atelier", "Mode", "Apparel", "Couture", "Studio"],
            "home textiles": ["Home", "Living", "Interiors", "Linens"],
            "upholstery": ["Upholstery", "Furnishings", "Seating"],
            "workwear": ["Workwear", "Uniforms", "Protective"],
            "automotive": ["Auto Interiors", "Mobility Trim"]}
LEGAL = {"Germany": "GmbH", "France": "SAS", "United Kingdom": "Ltd", "Spain": "S.L.",
         "Netherlands": "B.V.", "Sweden": "AB", "United States": "Inc.", "Japan": "K.K.",
         "Portugal": "Lda.", "Italy": "S.r.l.", "Turkey": "A.Ş."}
customers = []
used_cn = set()
cust_id = 0
for country, n in CUST_COUNTRIES:
    for k in range(n):
        cust_id += 1
        seg = R.choices([s for s, _ in SEGMENTS], [w for _, w in SEGMENTS])[0]
        while True:
            cn = "%s %s %s" % (R.choice(STEMS), R.choice(SEG_WORD[seg]), LEGAL[country])
            if cn not in used_cn:
                used_cn.add(cn)
                break
        pool = NAMES.get(country) or OTHER_NAMES[country]
        fn, ln = R.choice(pool[0]), R.choice(pool[1])
        key = 1 if R.random() < 0.2 else 0
        limit = money(R.choice([25000, 40000, 50000, 75000, 100000, 150000]) * (2 if key else 1))
        customers.append(dict(id=cust_id, country=country, seg=seg, key=key))
        add("customers", [cust_id, "CU-%04d" % (2000 + cust_id * 3), cn, country, seg, fn, ln,
                          limit, key])
# which customers never order
never_cust = set(R.sample([c["id"] for c in customers if not c["key"]], 11))
cust_weights = []
for c in customers:
    if c["id"] in never_cust:
        continue
    w = (5.0 if c["key"] else 1.0) * R.uniform(0.5, 1.6)
    cust_weights.append((c["id"], w))
CUST = {c["id"]: c for c in customers}

# ---------------------------------------------------------------- orders & the rest
table("orders", ["order_id", "order_code", "customer_id", "mill_id", "placed_date",
                 "required_date", "status", "is_rush"])
table("order_lines", ["line_id", "order_id", "line_no", "design_id", "color", "quantity_m",
                      "unit_price_eur"])
table("production_runs", ["run_id", "run_code", "line_id", "loom_id", "weaver_id",
                          "technician_id", "yarn_lot_id", "shift", "started_date",
                          "finished_date", "woven_m", "downtime_min"])
table("dye_batches", ["batch_id", "batch_code", "run_id", "dyer_id", "dyed_date", "color",
                      "dye_class", "fabric_kg", "water_used_l", "temperature_c", "was_redyed"])
table("inspections", ["inspection_id", "run_id", "inspector_id", "inspected_date",
                      "inspected_m", "defect_count", "grade", "passed"])
table("shipments", ["shipment_id", "shipment_code", "order_id", "carrier", "shipped_date",
                    "delivered_date", "roll_count", "gross_weight_kg", "freight_cost_eur",
                    "was_late"])
table("invoices", ["invoice_id", "invoice_number", "order_id", "issued_date", "due_date",
                   "amount_eur", "paid", "paid_date"])

TRANSIT = {"Germany": (3, 6), "France": (2, 5), "United Kingdom": (3, 7), "Spain": (2, 4),
           "Netherlands": (3, 5), "Sweden": (4, 8), "United States": (9, 18),
           "Japan": (14, 26), "Portugal": (1, 3), "Italy": (1, 4), "Turkey": (1, 3)}
CARRIERS = {"Portugal": ["DHL Freight", "DSV", "Transportes Luís Simões"],
            "Italy": ["DHL Freight", "Kuehne+Nagel", "Bartolini"],
            "Turkey": ["Arkas Lojistik", "DSV", "Kuehne+Nagel"]}
FAR = {"United States", "Japan"}

# busy loom calendar: loom -> date it becomes free
loom_free = {}
weaver_free = {}

placed_dates = []
n_orders = 720
for i in range(n_orders):
    d = rand_date(dt.date(2024, 1, 2), dt.date(2025, 12, 19))
    # a little seasonality: more orders in Feb-Apr and Sep-Oct
    if d.month in (6, 7, 8, 12) and R.random() < 0.3:
        d = rand_date(dt.date(d.year, 2, 1), dt.date(d.year, 4, 30))
    placed_dates.append(weekday_on_or_after(d))
placed_dates.sort()

order_seq = {2024: 0, 2025: 0}
run_seq = {2024: 0, 2025: 0}
batch_seq = {2024: 0, 2025: 0}
ship_seq = {2024: 0, 2025: 0}
inv_seq = {2024: 0, 2025: 0}
line_id = run_id = batch_id = insp_id = ship_id = inv_id = 0
mill_weights = [1.25, 0.95, 1.05, 0.8, 0.6, 1.3, 1.2]

# designs a mill can make: fibers the mill handles
designs_for_mill = {}
for mill_id in range(1, len(MILLS) + 1):
    designs_for_mill[mill_id] = [d for d in designs if d["fiber"] in MILL_FIBERS[mill_id]
                                 and not d["never"]]

for oid, placed in enumerate(placed_dates, 1):
    cust = R.choices([c for c, _ in cust_weights], [w for _, w in cust_weights])[0]
    country = CUST[cust]["country"]
    # home-country customers prefer the local mills
    mw = list(mill_weights)
    for m in range(1, len(MILLS) + 1):
        if MILL_COUNTRY[m] == country:
            mw[m - 1] *= 3
    mill = R.choices(range(1, len(MILLS) + 1), mw)[0]
    rush = 1 if R.random() < 0.11 else 0
    lead = R.randint(24, 35) if rush else R.randint(35, 95)
    required = weekday_on_or_after(placed + dt.timedelta(days=lead))
    cancelled = R.random() < 0.05
    order_seq[placed.year] += 1
    ocode = "SO-%d-%04d" % (placed.year, order_seq[placed.year])

    avail = [d for d in designs_for_mill[mill] if d["intro"] <= placed]
    n_lines = R.choices([1, 2, 3, 4, 5], [30, 32, 20, 12, 6])[0]
    lines = []
    for ln in range(1, n_lines + 1):
        d = R.choice(avail)
        color = R.choices(COLORS, COLOR_W)[0]
        qty = R.choice([150, 200, 250, 300, 400, 500, 600, 750, 800, 1000, 1200, 1500, 2000])
        if CUST[cust]["seg"] in ("workwear", "automotive"):
            qty = qty * 2
        disc = 0.93 if CUST[cust]["key"] else 1.0
        up = money(float(d["price"]) * disc * (1.04 if placed.year == 2025 else 1.0)
                   * (1.12 if rush else 1.0) * R.uniform(0.97, 1.03))
        line_id += 1
        lines.append(dict(id=line_id, design=d, color=color, qty=qty, price=up))
        add("order_lines", [line_id, oid, ln, d["id"], color, qty, up])

    status = "cancelled"
    order_finish = None
    started_any = False
    all_done = True
    order_weight = 0.0
    order_rolls = 0
    if not cancelled:
        for L in lines:
            d = L["design"]
            delay = R.randint(1, 4) if rush else R.randint(6, 30)
            if placed >= dt.date(2025, 12, 8):
                delay = R.randint(24, 40)  # waiting for yarn over the holidays
            start = weekday_on_or_after(placed + dt.timedelta(days=delay))
            # choose the least busy loom among a random sample
            cand = R.sample(looms_by_mill[mill], min(3, len(looms_by_mill[mill])))
            loom = min(cand, key=lambda x: loom_free.get(x, START))
            start = max(start, loom_free.get(loom, START))
            start = weekday_on_or_after(start)
            if start > TODAY:
                all_done = False
                continue
            # yarn lot of the right fiber at this mill, received before start, not rejected
            okl = [l for l in lots if l[1] == mill and l[2] == d["fiber"] and l[3] <= start
                   and not l[4]]
            if not okl:
                okl = [l for l in lots if l[1] == mill and l[2] == d["fiber"] and not l[4]]
            lot = okl[-R.randint(1, min(4, len(okl)))][0]
            weavers = [w for w in staff_by_mill_role[(mill, "weaver")] if staff_hire[w] <= start]
            weaver = R.choice(weavers)
            techs = [t for t in staff_by_mill_role[(mill, "technician")] if staff_hire[t] <= start]
            tech = R.choice(techs or staff_by_mill_role[(mill, "technician")])
            target = L["qty"] * R.uniform(1.01, 1.06)
            days = max(1, int(round(target / (R.uniform(90, 230) * (1.8 if rush else 1.0)))))
            fin = weekday_on_or_after(start + dt.timedelta(days=days))
            downtime = R.choice([0, 0, 0, 15, 20, 30, 45, 60, 90, 120, 180, 240, 360])
            if downtime >= 180:
                fin = weekday_on_or_after(fin + dt.timedelta(days=1))
            loom_free[loom] = fin + dt.timedelta(days=1)
            started_any = True
            run_seq[start.year] += 1
            run_id += 1
            rcode = "PR-%d-%04d" % (start.year, run_seq[start.year])
            shift = R.choices(["early", "late", "night"], [5, 4, 2])[0]
            if fin > TODAY:
                add("production_runs", [run_id, rcode, L["id"], loom, weaver, tech, lot, shift,
                                        d2s(start), None, None, downtime])
                all_done = False
                continue
            woven = round(target, 1)
            add("production_runs", [run_id, rcode, L["id"], loom, weaver, tech, lot, shift,
                                    d2s(start), d2s(fin), woven, downtime])
            ready = fin
            # inspection(s)
            inspectors = staff_by_mill_role[(mill, "inspector")]
            idate = weekday_on_or_after(fin + dt.timedelta(days=R.randint(0, 2)))
            if idate > TODAY:
                all_done = False
                continue
            rate100 = R.choices([0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.8, 2.4, 3.2, 4.5],
                                [8, 10, 10, 9, 8, 7, 5, 3, 2, 1])[0]
            if downtime >= 120:
                rate100 *= 1.6
            defects = int(round(woven / 100.0 * rate100 * R.uniform(0.6, 1.4)))
            per100 = defects / (woven / 100.0)
            grade = "A" if per100 <= 1.0 else ("B" if per100 <= 3.0 else "C")
            passed = 0 if grade == "C" else 1
            insp_id += 1
            add("inspections", [insp_id, run_id, R.choice(inspectors), d2s(idate), woven,
                                defects, grade, passed])
            ready = idate
            if not passed:
                idate2 = weekday_on_or_after(idate + dt.timedelta(days=R.randint(2, 6)))
                if idate2 > TODAY:
                    all_done = False
                    continue
                defects2 = int(round(woven / 100.0 * R.uniform(0.3, 2.4)))
                per100 = defects2 / (woven / 100.0)
                grade2 = "A" if per100 <= 1.0 else "B"
                insp_id += 1
                add("inspections", [insp_id, run_id, R.choice(inspectors), d2s(idate2), woven,
                                    defects2, grade2, 1])
                ready = idate2
            fabric_kg = round(woven * d["gsm"] * 1.5 / 1000.0, 1)
            order_weight += fabric_kg
            order_rolls += max(1, int(round(woven / 60.0)))
            # dyeing (piece-dyed at mills with a dyehouse; ecru stays undyed)
            if MILL_DYE[mill] and L["color"] not in UNDYED:
                ddate = weekday_on_or_after(ready + dt.timedelta(days=R.randint(1, 3)))
                if ddate > TODAY:
                    all_done = False
                    continue
                dc = R.choice(DYE_CLASS[d["fiber"]])
                redyed = 1 if R.random() < 0.07 else 0
                batch_seq[ddate.year] += 1
                batch_id += 1
                water = int(round(fabric_kg * R.uniform(8, 14) * (1.6 if redyed else 1.0)))
                temp = DYE_TEMP[dc] + R.choice([-2, 0, 0, 0, 2, 5])
                add("dye_batches", [batch_id, "DB-%d-%04d" % (ddate.year, batch_seq[ddate.year]),
                                    run_id, R.choice(staff_by_mill_role[(mill, "dyer")]),
                                    d2s(ddate), L["color"], dc, fabric_kg, water, temp, redyed])
                ready = ddate + dt.timedelta(days=2 if redyed else 0)
            if order_finish is None or ready > order_finish:
                order_finish = ready
        if not started_any:
            status = "open"
        elif not all_done:
            status = "in production"
        else:
            shipped = weekday_on_or_after(order_finish + dt.timedelta(days=R.randint(2, 7)))
            if shipped > TODAY:
                status = "in production"
            else:
                status = "shipped"
    add("orders", [oid, ocode, cust, mill, d2s(placed), d2s(required), status, rush])

    if status == "shipped":
        ship_seq[shipped.year] += 1
        ship_id += 1
        lo, hi = TRANSIT[country]
        if MILL_COUNTRY[mill] == country:
            lo, hi = 1, 2
        deliv = shipped + dt.timedelta(days=R.randint(lo, hi))
        if deliv > TODAY:
            deliv = None
            late = None
        else:
            late = 1 if deliv > required else 0
        carrier = R.choice(CARRIERS[MILL_COUNTRY[mill]])
        if country in FAR:
            carrier = "Kuehne+Nagel" if R.random() < 0.6 else "DSV"
        gw = round(order_weight * 1.06 + order_rolls * 1.8, 1)
        freight = money(gw * (0.9 if country not in FAR else 2.6) * R.uniform(0.8, 1.2) + 45)
        add("shipments", [ship_id,
                          "SH-%d-%04d" % (shipped.year, ship_seq[shipped.year]), oid, carrier,
                          d2s(shipped), d2s(deliv), order_rolls, gw, freight, late])
        # invoice
        inv_seq[shipped.year] += 1
        inv_id += 1
        amount = money(sum(L["qty"] * L["price"] for L in lines))
        terms = 60 if CUST[cust]["key"] else R.choice([30, 30, 45, 60])
        due = shipped + dt.timedelta(days=terms)
        r = R.random()
        if due < dt.date(2025, 11, 1):
            paid = 0 if r < 0.04 else 1
        elif due <= TODAY:
            paid = 0 if r < 0.35 else 1
        else:
            paid = 1 if r < 0.25 else 0
        pd = None
        if paid:
            pd = shipped + dt.timedelta(days=int(terms * R.uniform(0.5, 1.35)))
            pd = weekday_on_or_after(pd)
            if pd > TODAY:
                pd = weekday_on_or_after(shipped + dt.timedelta(days=R.randint(5, 15)))
                if pd > TODAY:
                    paid, pd = 0, None
        add("invoices", [inv_id, "INV-%d-%05d" % (shipped.year, inv_seq[shipped.year]), oid,
                         d2s(shipped), d2s(due), amount, paid, d2s(pd)])


# ---------------------------------------------------------------- write
def main():
    order = ["mills", "staff", "looms", "suppliers", "yarn_lots", "designs", "customers",
             "orders", "order_lines", "production_runs", "dye_batches", "inspections",
             "shipments", "invoices"]
    out = ["-- textile_mill: weaving and dyeing mills in Portugal, Italy and Turkey, 2024-2025",
           "-- generated by gen_textile_mill.py; do not edit by hand", DDL.strip(), ""]
    for t in order:
        cols = ", ".join(TABLE_COLS[t])
        for row in ROWS[t]:
            vals = []
            for v in row:
                vals.append(q(v))
            out.append("INSERT INTO %s (%s) VALUES (%s);" % (t, cols, ", ".join(vals)))
        out.append("")
    with open(os.path.join(HERE, "textile_mill.sql"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out))
    for t in order:
        print("%-16s %5d" % (t, len(ROWS[t])))


if __name__ == "__main__":
    main()
