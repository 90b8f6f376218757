#!/usr/bin/env python3
"""Generate grain_deliveries.jsonl: deliveries of grain and oilseeds by member farmers to the nine
silos of an agricultural cooperative in FR, DE, PL and HU, harvests 2024 and 2025 (deliveries
July 2024 - November 2025).

Each record is one load delivered at a silo: the delivery number, the delivery date and the date the
farmer was paid, the harvest year, the farmer (first and last name in two fields), the silo with its
code, country code and region, the crop and its grade, the haulier company and the truck plate, the
net weight in tonnes, the moisture, the protein content (cereals) or the oil content (oilseeds), the
price per tonne and the total amount in EUR, three flags (organic, rejected, needs drying) and a
free-text note of the intake inspector.

Seeded and standard-library only, so the output is identical on every run. A field that does not
apply is left out, never written as null: `paidDate` on a load that has not been paid (yet),
`protein_pct` on oilseeds, `oilContentPct` on cereals, `haulier` on a load the farmer brought in
with his own tractor, `pricePerTonneEur` and `total_amount_eur` on a rejected load,
`inspector_note` where the inspector wrote none.
"""
import json
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261129 + 15)

# silo name -> (silo code, country code, region, weight, crop weights)
SILOS = {
    "Châteaudun": ("FR-CHD", "FR", "Centre-Val de Loire", 48,
                   {"wheat": 50, "barley": 22, "rapeseed": 12, "maize": 8, "sunflower": 4}),
    "Bétheny": ("FR-BET", "FR", "Grand Est", 40,
                {"wheat": 40, "barley": 30, "rapeseed": 18, "maize": 4}),
    "Poitiers Nord": ("FR-POI", "FR", "Nouvelle-Aquitaine", 36,
                      {"wheat": 30, "maize": 26, "sunflower": 24, "barley": 10, "rapeseed": 8}),
    "Magdeburg Hafen": ("DE-MAG", "DE", "Sachsen-Anhalt", 42,
                        {"wheat": 44, "barley": 20, "rapeseed": 22, "rye": 10}),
    "Anklam": ("DE-ANK", "DE", "Mecklenburg-Vorpommern", 32,
               {"wheat": 36, "rapeseed": 30, "rye": 18, "barley": 14}),
    "Kętrzyn": ("PL-KET", "PL", "Warmińsko-Mazurskie", 34,
                {"wheat": 34, "rye": 24, "rapeseed": 20, "barley": 12, "maize": 8}),
    "Wrocław Elewator": ("PL-WRO", "PL", "Dolnośląskie", 38,
                         {"wheat": 40, "maize": 22, "rapeseed": 18, "barley": 12}),
    "Szeged": ("HU-SZE", "HU", "Csongrád-Csanád", 40,
               {"maize": 40, "sunflower": 30, "wheat": 24, "barley": 6}),
    "Debrecen": ("HU-DEB", "HU", "Hajdú-Bihar", 34,
                 {"maize": 44, "wheat": 26, "sunflower": 22, "rapeseed": 6}),
}

HAULIERS = {
    "FR": ["Transports Giraud", "Lecomte Logistique", "Beauce Vrac"],
    "DE": ["Spedition Wendt", "Agrotrans Nord"],
    "PL": ["Trans-Rol", "Kowal Transport"],
    "HU": ["Alföld Fuvar", "Tisza Trans"],
}

FIRST = {
    "FR": ["Jean-Marc", "Sophie", "Olivier", "Claire", "Thierry", "Émilie", "Philippe", "Nathalie", "Guillaume", "Laurent"],
    "DE": ["Jürgen", "Heike", "Matthias", "Sandra", "Uwe", "Dirk", "Anja", "Florian"],
    "PL": ["Grzegorz", "Agata", "Zbigniew", "Marta", "Paweł", "Dariusz", "Ewelina"],
    "HU": ["László", "Zsófia", "Gábor", "Erzsébet", "Attila", "Tamás", "Katalin"],
}
LAST = {
    "FR": ["Lefèvre", "Moreau", "Girard", "Bonnet", "Rousseau", "Fournier", "Chevalier", "Gauthier", "Perrin"],
    "DE": ["Brandt", "Köhler", "Richter", "Schulze", "Krüger", "Neumann", "Lorenz"],
    "PL": ["Nowak", "Zieliński", "Wiśniewski", "Dąbrowski", "Kaczmarek", "Piotrowski"],
    "HU": ["Nagy", "Kovács", "Szabó", "Tóth", "Varga", "Horváth", "Farkas"],
}

# crop -> (cereal?, harvest window (month, day) start/end, price per tonne EUR by grade,
#          moisture range %, drying limit %, protein range %, oil range %)
CROPS = {
    "barley": (True, (7, 1), (7, 31), {"premium": 228, "standard": 196, "feed": 178},
               (11.5, 15.6), 14.5, (9.2, 12.8), None),
    "rapeseed": (False, (7, 5), (8, 5), {"premium": 472, "standard": 446},
                 (6.0, 10.8), 9.0, None, (40.5, 46.5)),
    "wheat": (True, (7, 15), (8, 25), {"premium": 246, "standard": 218, "feed": 196},
              (11.8, 16.2), 14.5, (10.2, 14.6), None),
    "rye": (True, (7, 20), (8, 25), {"premium": 188, "standard": 172, "feed": 158},
            (12.0, 16.0), 14.5, (7.8, 10.8), None),
    "sunflower": (False, (8, 28), (10, 10), {"premium": 438, "standard": 404},
                  (6.5, 11.5), 9.0, None, (42.0, 50.0)),
    "maize": (True, (9, 25), (11, 25), {"premium": 212, "standard": 194, "feed": 184},
              (14.0, 31.0), 15.0, (7.4, 9.6), None),
}

END = date(2025, 11, 30)
TODAY = date(2025, 12, 5)
N = 352

NOTE_OK = [
    "Clean sample, no remarks.",
    "Sample within contract specification.",
    "Good colour and smell, accepted at intake.",
]
# theme -> (sentence, crops it can occur in or None, severe: can lead to rejection)
NOTES = {
    "stones": ("Stones and soil found in the sample.", None, False),
    "broken": ("High share of broken kernels.", ("wheat", "barley", "maize", "rye"), False),
    "sprouted": ("Sprouted grains after the rain, falling number low.", ("wheat", "rye"), False),
    "weeds": ("Weed seeds and chaff above the limit, cleaning deduction applied.", None, False),
    "tarp": ("Trailer arrived without a tarpaulin.", None, False),
    "hot": ("Load was warm on arrival, probe showed heating in the middle.", None, True),
    "mould": ("Visible mould on part of the load.", None, True),
    "insects": ("Live weevils found in the sample.", ("wheat", "barley", "maize", "rye"), True),
    "ergot": ("Ergot bodies found above the tolerance.", ("rye", "wheat"), True),
    "musty": ("Musty smell, sample sent to the lab for a mycotoxin test.", None, True),
    "impurity": ("Impurity level too high for the premium grade.", ("rapeseed", "sunflower"), False),
}

PL_WOMEN = {"Agata", "Marta", "Ewelina"}
PL_FEMININE = {"Wiśniewski": "Wiśniewska", "Zieliński": "Zielińska", "Dąbrowski": "Dąbrowska", "Piotrowski": "Piotrowska"}

# farmers: each belongs to one silo
farmers = []
used = set()
for silo, (_code, cc, _reg, w, _crops) in SILOS.items():
    for _ in range(max(4, w // 9)):
        while True:
            fn, ln = rng.choice(FIRST[cc]), rng.choice(LAST[cc])
            if cc == "PL" and fn in PL_WOMEN:
                ln = PL_FEMININE.get(ln, ln)
            if (fn, ln) not in used:
                used.add((fn, ln))
                break
        farmers.append({"first": fn, "last": ln, "silo": silo,
                        "size": rng.choice([1, 1, 2, 2, 3, 5]),
                        "organic": rng.random() < 0.18,
                        "own_tractor": rng.random() < 0.3})


def plate(cc):
    L = "ABCDEFGHJKLMNPRSTVXYZ"
    if cc == "FR":
        return f"{rng.choice(L)}{rng.choice(L)}-{rng.randint(100, 999)}-{rng.choice(L)}{rng.choice(L)}"
    if cc == "DE":
        return f"{rng.choice(['MD', 'SDL', 'HGW', 'VG', 'BK'])}-{rng.choice(L)}{rng.choice(L)} {rng.randint(10, 9999)}"
    if cc == "PL":
        return f"{rng.choice(['NKE', 'NGI', 'DW', 'DWR', 'DTR'])} {rng.randint(10000, 99999)}"
    return f"{rng.choice(L)}{rng.choice(L)}{rng.choice(L)}-{rng.randint(100, 999)}"


def harvest_date(year, crop):
    _c, (m1, d1), (m2, d2), *_ = CROPS[crop]
    a, b = date(year, m1, d1), date(year, m2, d2)
    if rng.random() < 0.16:
        # delivered later out of the farm's own store
        a, b = b + timedelta(days=20), min(date(year + 1, 3, 31), END)
        if a > b:
            a = b - timedelta(days=10)
    return a + timedelta(days=rng.randint(0, (b - a).days))


records = []
silo_names = list(SILOS)
while len(records) < N:
    silo = rng.choices(silo_names, weights=[s[3] for s in SILOS.values()])[0]
    code, cc, region, _w, crop_w = SILOS[silo]
    crop = rng.choices(list(crop_w), weights=list(crop_w.values()))[0]
    year = rng.choice([2024, 2024, 2024, 2025, 2025, 2025, 2025])
    d = harvest_date(year, crop)
    if d > END:
        continue
    members = [f for f in farmers if f["silo"] == silo]
    f = rng.choices(members, weights=[m["size"] for m in members])[0]
    cereal, _a, _b, prices, mrange, dry_limit, prange, orange = CROPS[crop]

    moisture = round(rng.uniform(*mrange), 1)
    if crop == "maize" and rng.random() < 0.8:
        moisture = round(rng.uniform(21.0, 31.0), 1)
    needs_drying = moisture > dry_limit
    protein = round(rng.uniform(*prange), 1) if cereal else None
    oil = round(rng.uniform(*orange), 1) if not cereal else None

    own = f["own_tractor"] and rng.random() < 0.75
    if own:
        weight = round(rng.uniform(6.0, 17.5), 2)
    else:
        weight = round(rng.uniform(18.0, 29.8), 2)

    themes = []
    if rng.random() < 0.34:
        pool = [t for t, (_s, crops, _sev) in NOTES.items() if crops is None or crop in crops]
        themes.append(rng.choice(pool))
        if rng.random() < 0.15:
            t2 = rng.choice(pool)
            if t2 not in themes:
                themes.append(t2)
    severe = any(NOTES[t][2] for t in themes)
    rejected = severe and rng.random() < 0.55

    if crop == "wheat":
        grade = "premium" if protein >= 13.0 else ("standard" if protein >= 11.4 else "feed")
    elif crop == "barley":
        grade = rng.choices(["premium", "standard", "feed"], [3, 3, 4])[0]
    elif cereal:
        grade = rng.choices(["premium", "standard", "feed"], [2, 5, 3])[0]
    else:
        grade = rng.choices(["premium", "standard"], [4, 6])[0]
    if themes and grade == "premium" and rng.random() < 0.7:
        grade = "standard" if not cereal else "feed"

    price = None
    total = None
    if not rejected:
        base = prices[grade] * (1 if year == 2024 else 1.04)
        if f["organic"]:
            base *= 1.75
        price = round(base * rng.uniform(0.96, 1.04), 2)
        total = round(price * weight, 2)

    paid = None
    if not rejected:
        p = d + timedelta(days=rng.randint(12, 50))
        if p <= TODAY and rng.random() > 0.04:
            paid = p

    note = None
    if themes:
        note = " ".join(NOTES[t][0] for t in themes)
        if rejected:
            note += " Load rejected."
    elif rng.random() < 0.25:
        note = rng.choice(NOTE_OK)

    rec = {
        "deliveryDate": d.isoformat(),
    }
    if paid is not None:
        rec["paidDate"] = paid.isoformat()
    rec.update({
        "harvest_year": year,
        "farmer_first_name": f["first"],
        "farmerLastName": f["last"],
        "silo_name": silo,
        "siloCode": code,
        "country_code": cc,
        "region": region,
        "crop": crop,
        "grade": grade,
    })
    if not own:
        rec["haulier"] = rng.choice(HAULIERS[cc])
    rec["truckPlate"] = plate(cc)
    rec["net_weight_t"] = weight
    rec["moisturePct"] = moisture
    if protein is not None:
        rec["protein_pct"] = protein
    if oil is not None:
        rec["oilContentPct"] = oil
    if price is not None:
        rec["pricePerTonneEur"] = price
        rec["total_amount_eur"] = total
    rec["isOrganic"] = f["organic"]
    rec["was_rejected"] = rejected
    rec["needs_drying"] = needs_drying
    if note is not None:
        rec["inspector_note"] = note
    records.append(rec)

records.sort(key=lambda r: r["deliveryDate"])
counters = {2024: 0, 2025: 0}
out = []
for r in records:
    y = int(r["deliveryDate"][:4])
    counters[y] += rng.randint(1, 3)
    out.append({"delivery_no": f"GD-{y}-{counters[y]:05d}", **r})

with open(os.path.join(HERE, "grain_deliveries.jsonl"), "w", encoding="utf-8") as fh:
    for r in out:
        fh.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(out)} records")
