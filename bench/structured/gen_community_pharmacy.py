#!/usr/bin/env python3
"""Generate community_pharmacy.sql: a group of community pharmacies in Spain and Portugal, 2024-2025.

Deterministic (seeded), standard library only.  Usage:
    python3 bench/structured/gen_community_pharmacy.py
writes community_pharmacy.sql next to this script.  The SQL loads into SQLite and PostgreSQL.
"""
import datetime as dt
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "community_pharmacy.sql")

R = random.Random(20261129)

START = dt.date(2024, 1, 1)
END = dt.date(2025, 12, 31)


def d(s):
    return dt.date.fromisoformat(s)


def rand_date(a, b):
    """A random date between a and b inclusive."""
    return a + dt.timedelta(days=R.randint(0, (b - a).days))


def money(x):
    return round(x + 1e-9, 2)


HEADER = """\
-- community_pharmacy: a group of nine community pharmacies in Spain (Madrid, Barcelona, Valencia,
-- Sevilla) and Portugal (Lisboa, Porto, Braga), with their activity from 1 January 2024 to
-- 31 December 2025.  All money is in euros; dates are TEXT 'YYYY-MM-DD'; flags are INTEGER 0/1
-- (1 = yes).  Units are in the column names (_eur, _mg, _m2, _pct); packs_* count packs.
--
-- pharmacies        one row per pharmacy.  pharmacy_code 'FAR-<city>-NN' (MAD Madrid, BCN Barcelona,
--                   VLC Valencia, SEV Sevilla, LIS Lisboa, OPO Porto, BRG Braga); country_code 'ES' or
--                   'PT'; joined_group_on = the date the pharmacy joined the group (Braga joined on
--                   2025-10-01 and has activity only from then).  Flags: is_open_24h (open day and
--                   night), has_vaccination_room (may give vaccinations), has_dispensing_robot
--                   (automated storage and picking robot).  floor_area_m2 = sales floor area.
-- staff             pharmacists, pharmacy technicians and counter assistants.  role is one of
--                   'pharmacist', 'technician', 'counter assistant'.  supervisor_id -> staff: the
--                   supervising pharmacist (NULL for the head pharmacist of each pharmacy, who
--                   supervises the others).  employee_code 'EMP-NNNN'.  licence_number = professional
--                   registration of pharmacists ('COF-28-4512' Spanish college of pharmacists with
--                   province number, 'OF-12345' Portuguese Ordem dos Farmaceuticos); NULL for
--                   technicians and counter assistants.  hired_on; left_on NULL while still employed.
--                   Flags: is_part_time, is_vaccination_certified (trained to give injections).
-- clinics           health centres, hospitals and private clinics where prescribing doctors work.
--                   clinic_type is one of 'primary care', 'hospital', 'private clinic'; is_public
--                   = part of the national health service (SNS / SNS Portugal).
-- doctors           prescribing doctors.  specialty is one of 'family medicine', 'paediatrics',
--                   'cardiology', 'psychiatry', 'dermatology', 'endocrinology', 'pulmonology',
--                   'internal medicine'.  licence_number 'COL-28-14235' (Spain, province 28 =
--                   Madrid) or 'OM-54321' (Portugal, Ordem dos Medicos).  Some doctors have never
--                   written a prescription that reached the group.
-- patients          registered patients (with a patient card).  patient_code 'PT-NNNNN'; sex 'F'
--                   or 'M'; home_pharmacy_id = the pharmacy where the card was issued;
--                   registered_on.  Flags: has_chronic_condition (on long-term treatment),
--                   is_copay_exempt (pays nothing for reimbursed prescriptions).  allergy_notes
--                   NULL when no known allergy.  No birth dates are held.
-- medicines         the catalogue.  national_code 'CN-NNNNNN' (Spanish Codigo Nacional / Portuguese
--                   CNPEM style); brand_name; active_ingredient; strength_mg = strength of one unit
--                   in milligrams (NULL for vaccines, insulins, creams and eye drops, whose strength
--                   is not given in mg); form is one of 'tablet', 'capsule', 'sachet', 'inhaler',
--                   'injection', 'cream', 'eye drops', 'patch'; pack_size = units (tablets,
--                   doses, pens, tubes...) per pack; price_eur = retail price of one pack;
--                   therapeutic_group is one of 'analgesic', 'antibiotic', 'cardiovascular',
--                   'respiratory', 'nervous system', 'digestive', 'endocrine', 'allergy',
--                   'dermatological', 'vaccine', 'ophthalmic'.  Flags: is_prescription_only,
--                   is_controlled (narcotic or psychotropic under special control),
--                   is_refrigerated (must be stored at 2-8 C), is_generic.
-- wholesalers       pharmaceutical distributors.  country_code; is_cooperative (owned by its
--                   member pharmacies).  One wholesaler has never received an order.
-- prescriptions     prescriptions presented by patients.  rx_number 'RX-YYYY-NNNN' (numbered in
--                   issue order within the year); issued_on; valid_until; doctor_id -> doctors.
--                   Flags: is_electronic (e-prescription, else paper), is_repeat (long-term
--                   repeat prescription).
-- prescription_items  the medicines on a prescription: packs_prescribed, dosage_instructions,
--                   treatment_days.  Some items were never collected (no dispensing).
-- dispensings       every medicine handed over the counter (vaccines given in the pharmacy are
--                   in vaccinations instead).  dispensing_code 'DSP-YYYY-NNNNN';
--                   dispensed_on; packs; total_price_eur = retail value; patient_paid_eur = what
--                   the patient paid (the rest is reimbursed by the health service); copay_pct =
--                   the patient's contribution rate in percent (0 for exempt patients; Spain 10,
--                   40, 50 or 60, Portugal 10, 31, 63 or 85; high-cost medicines 10, capped at
--                   4.24 per pack), NULL for over-the-counter sales, which are not reimbursed.
--                   Two staff roles: dispensed_by_id -> staff (who served the patient) and
--                   checked_by_id -> staff (the pharmacist who checked a prescription dispensing;
--                   NULL for over-the-counter sales).  prescription_item_id NULL and often
--                   patient_id NULL (anonymous customer) for over-the-counter sales.
--                   Flags: was_substituted (a generic was given instead of the prescribed brand;
--                   medicine_id is then the generic actually handed over).
-- stock_orders      orders to wholesalers.  order_number 'PO-YYYY-NNNN'; ordered_by_id -> staff;
--                   status is one of 'delivered', 'pending', 'cancelled'; delivered_on NULL
--                   unless delivered.  Flag: is_urgent (same-day delivery requested).
-- stock_order_lines ordered medicines: packs_ordered, packs_received (NULL unless the order was
--                   delivered; can be below packs_ordered when the wholesaler was short),
--                   unit_cost_eur = purchase price of one pack.
-- vaccinations      vaccines given in the pharmacy.  medicine_id -> a medicine of group
--                   'vaccine'; administered_by_id -> staff; given_on; dose_number (1, 2 ...);
--                   batch_number 'FLU24-A113' style; injection_site 'left arm' or 'right arm';
--                   is_funded (free under a public campaign); fee_eur = service fee charged to
--                   the patient, NULL when funded.
-- adverse_reactions suspected adverse drug reactions reported by the pharmacy.  report_code
--                   'AR-YYYY-NNN'; reported_by_id -> staff; reported_on; reaction_type is one of
--                   'rash', 'nausea', 'dizziness', 'swelling', 'headache', 'fever', 'sore arm';
--                   severity is one of 'mild', 'moderate', 'severe'; vaccination_id NULL unless
--                   the reaction followed a vaccination in the pharmacy.  Flags:
--                   was_hospitalised, was_reported_to_agency (notified to AEMPS / INFARMED),
--                   resolved (the patient has recovered).
"""

DDL = """\
CREATE TABLE pharmacies (
    pharmacy_id INTEGER PRIMARY KEY,
    pharmacy_code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country_code TEXT NOT NULL,
    joined_group_on TEXT NOT NULL,
    floor_area_m2 REAL NOT NULL,
    is_open_24h INTEGER NOT NULL,
    has_vaccination_room INTEGER NOT NULL,
    has_dispensing_robot INTEGER NOT NULL
);

CREATE TABLE staff (
    staff_id INTEGER PRIMARY KEY,
    employee_code TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    pharmacy_id INTEGER NOT NULL REFERENCES pharmacies(pharmacy_id),
    role TEXT NOT NULL,
    supervisor_id INTEGER REFERENCES staff(staff_id),
    licence_number TEXT,
    hired_on TEXT NOT NULL,
    left_on TEXT,
    hourly_rate_eur NUMERIC(8,2) NOT NULL,
    is_part_time INTEGER NOT NULL,
    is_vaccination_certified INTEGER NOT NULL
);

CREATE TABLE clinics (
    clinic_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country_code TEXT NOT NULL,
    clinic_type TEXT NOT NULL,
    is_public INTEGER NOT NULL
);

CREATE TABLE doctors (
    doctor_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    clinic_id INTEGER NOT NULL REFERENCES clinics(clinic_id),
    specialty TEXT NOT NULL,
    licence_number TEXT NOT NULL UNIQUE
);

CREATE TABLE patients (
    patient_id INTEGER PRIMARY KEY,
    patient_code TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    sex TEXT NOT NULL,
    city TEXT NOT NULL,
    home_pharmacy_id INTEGER NOT NULL REFERENCES pharmacies(pharmacy_id),
    registered_on TEXT NOT NULL,
    has_chronic_condition INTEGER NOT NULL,
    is_copay_exempt INTEGER NOT NULL,
    allergy_notes TEXT
);

CREATE TABLE medicines (
    medicine_id INTEGER PRIMARY KEY,
    national_code TEXT NOT NULL UNIQUE,
    brand_name TEXT NOT NULL,
    active_ingredient TEXT NOT NULL,
    strength_mg REAL,
    form TEXT NOT NULL,
    pack_size INTEGER NOT NULL,
    price_eur NUMERIC(8,2) NOT NULL,
    therapeutic_group TEXT NOT NULL,
    is_prescription_only INTEGER NOT NULL,
    is_controlled INTEGER NOT NULL,
    is_refrigerated INTEGER NOT NULL,
    is_generic INTEGER NOT NULL
);

CREATE TABLE wholesalers (
    wholesaler_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country_code TEXT NOT NULL,
    is_cooperative INTEGER NOT NULL
);

CREATE TABLE prescriptions (
    prescription_id INTEGER PRIMARY KEY,
    rx_number TEXT NOT NULL UNIQUE,
    patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
    doctor_id INTEGER NOT NULL REFERENCES doctors(doctor_id),
    issued_on TEXT NOT NULL,
    valid_until TEXT NOT NULL,
    is_electronic INTEGER NOT NULL,
    is_repeat INTEGER NOT NULL
);

CREATE TABLE prescription_items (
    prescription_item_id INTEGER PRIMARY KEY,
    prescription_id INTEGER NOT NULL REFERENCES prescriptions(prescription_id),
    medicine_id INTEGER NOT NULL REFERENCES medicines(medicine_id),
    packs_prescribed INTEGER NOT NULL,
    dosage_instructions TEXT NOT NULL,
    treatment_days INTEGER NOT NULL
);

CREATE TABLE dispensings (
    dispensing_id INTEGER PRIMARY KEY,
    dispensing_code TEXT NOT NULL UNIQUE,
    pharmacy_id INTEGER NOT NULL REFERENCES pharmacies(pharmacy_id),
    patient_id INTEGER REFERENCES patients(patient_id),
    prescription_item_id INTEGER REFERENCES prescription_items(prescription_item_id),
    medicine_id INTEGER NOT NULL REFERENCES medicines(medicine_id),
    dispensed_by_id INTEGER NOT NULL REFERENCES staff(staff_id),
    checked_by_id INTEGER REFERENCES staff(staff_id),
    dispensed_on TEXT NOT NULL,
    packs INTEGER NOT NULL,
    total_price_eur NUMERIC(10,2) NOT NULL,
    copay_pct INTEGER,
    patient_paid_eur NUMERIC(10,2) NOT NULL,
    was_substituted INTEGER NOT NULL
);

CREATE TABLE stock_orders (
    stock_order_id INTEGER PRIMARY KEY,
    order_number TEXT NOT NULL UNIQUE,
    pharmacy_id INTEGER NOT NULL REFERENCES pharmacies(pharmacy_id),
    wholesaler_id INTEGER NOT NULL REFERENCES wholesalers(wholesaler_id),
    ordered_by_id INTEGER NOT NULL REFERENCES staff(staff_id),
    ordered_on TEXT NOT NULL,
    status TEXT NOT NULL,
    delivered_on TEXT,
    is_urgent INTEGER NOT NULL
);

CREATE TABLE stock_order_lines (
    line_id INTEGER PRIMARY KEY,
    stock_order_id INTEGER NOT NULL REFERENCES stock_orders(stock_order_id),
    medicine_id INTEGER NOT NULL REFERENCES medicines(medicine_id),
    packs_ordered INTEGER NOT NULL,
    packs_received INTEGER,
    unit_cost_eur NUMERIC(8,2) NOT NULL
);

CREATE TABLE vaccinations (
    vaccination_id INTEGER PRIMARY KEY,
    patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
    pharmacy_id INTEGER NOT NULL REFERENCES pharmacies(pharmacy_id),
    medicine_id INTEGER NOT NULL REFERENCES medicines(medicine_id),
    administered_by_id INTEGER NOT NULL REFERENCES staff(staff_id),
    given_on TEXT NOT NULL,
    dose_number INTEGER NOT NULL,
    batch_number TEXT NOT NULL,
    injection_site TEXT NOT NULL,
    is_funded INTEGER NOT NULL,
    fee_eur NUMERIC(8,2)
);

CREATE TABLE adverse_reactions (
    reaction_id INTEGER PRIMARY KEY,
    report_code TEXT NOT NULL UNIQUE,
    patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
    medicine_id INTEGER NOT NULL REFERENCES medicines(medicine_id),
    vaccination_id INTEGER REFERENCES vaccinations(vaccination_id),
    reported_by_id INTEGER NOT NULL REFERENCES staff(staff_id),
    reported_on TEXT NOT NULL,
    reaction_type TEXT NOT NULL,
    severity TEXT NOT NULL,
    was_hospitalised INTEGER NOT NULL,
    was_reported_to_agency INTEGER NOT NULL,
    resolved INTEGER NOT NULL
);
"""

# ---------------------------------------------------------------------------------------------
# Reference data
# ---------------------------------------------------------------------------------------------

# code, name, city, country, joined, area, 24h, vacc room, robot
PHARMACIES = [
    ("FAR-MAD-01", "Farmacia Lavapiés", "Madrid", "ES", "2009-03-01", 142.0, 0, 1, 1),
    ("FAR-MAD-02", "Farmacia Chamberí", "Madrid", "ES", "2015-06-15", 96.5, 1, 1, 0),
    ("FAR-BCN-01", "Farmàcia Gràcia", "Barcelona", "ES", "2012-01-10", 118.0, 0, 0, 1),
    ("FAR-VLC-01", "Farmacia Ruzafa", "Valencia", "ES", "2017-09-01", 84.0, 0, 0, 0),
    ("FAR-SEV-01", "Farmacia Triana", "Sevilla", "ES", "2019-04-01", 77.5, 1, 0, 0),
    ("FAR-LIS-01", "Farmácia Alfama", "Lisboa", "PT", "2014-02-03", 65.0, 0, 1, 0),
    ("FAR-LIS-02", "Farmácia Campo de Ourique", "Lisboa", "PT", "2020-11-02", 110.0, 0, 1, 1),
    ("FAR-OPO-01", "Farmácia Bolhão", "Porto", "PT", "2016-05-16", 91.0, 1, 1, 0),
    ("FAR-BRG-01", "Farmácia da Sé", "Braga", "PT", "2025-10-01", 58.0, 0, 0, 0),
]
PH_ACTIVE_FROM = {i + 1: max(START, d(p[4])) for i, p in enumerate(PHARMACIES)}
PH_CITY = {i + 1: p[2] for i, p in enumerate(PHARMACIES)}
PH_COUNTRY = {i + 1: p[3] for i, p in enumerate(PHARMACIES)}
PROVINCE = {"Madrid": "28", "Barcelona": "08", "Valencia": "46", "Sevilla": "41"}

ES_FIRST_F = ["Lucía", "María", "Carmen", "Ana", "Laura", "Marta", "Elena", "Paula", "Sara",
              "Cristina", "Isabel", "Pilar", "Rocío", "Nuria", "Alba", "Montserrat", "Amparo",
              "Irene", "Silvia", "Beatriz", "Raquel", "Eva", "Julia", "Clara", "Noelia"]
ES_FIRST_M = ["Javier", "Carlos", "David", "Pablo", "Miguel", "Antonio", "Manuel", "Jorge",
              "Sergio", "Alejandro", "Diego", "Raúl", "Fernando", "Álvaro", "Iván", "Andrés",
              "Rubén", "Jordi", "Vicente", "Óscar", "Ignacio", "Héctor", "Luis", "Adrián"]
ES_LAST = ["García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez",
           "Pérez", "Gómez", "Martín", "Jiménez", "Ruiz", "Hernández", "Díaz", "Moreno",
           "Muñoz", "Álvarez", "Romero", "Alonso", "Gutiérrez", "Navarro", "Torres",
           "Domínguez", "Vázquez", "Ramos", "Gil", "Serrano", "Blanco", "Molina", "Ortega",
           "Castro", "Rubio", "Marín", "Sanz", "Iglesias", "Medina", "Garrido", "Cortés",
           "Castillo", "Lozano", "Guerrero", "Cano", "Prieto", "Méndez", "Calvo", "Gallego",
           "Vidal", "Herrera", "Peña", "Flores", "Cabrera", "Campos", "Vega", "Fuentes",
           "Carrasco", "Caballero", "Nieto", "Aguilar", "Pascual", "Herrero", "Montero",
           "Hidalgo", "Ibáñez", "Ferrer", "Durán", "Soler", "Puig", "Roca", "Vila", "Pons"]
PT_FIRST_F = ["Maria", "Ana", "Joana", "Inês", "Beatriz", "Mariana", "Catarina", "Sofia", "Rita",
              "Marta", "Teresa", "Filipa", "Leonor", "Carolina", "Patrícia", "Helena", "Raquel",
              "Sónia", "Cláudia", "Daniela", "Vera", "Andreia"]
PT_FIRST_M = ["João", "José", "António", "Francisco", "Rui", "Pedro", "Tiago", "Miguel", "Nuno",
              "Ricardo", "Luís", "Bruno", "Diogo", "Gonçalo", "Afonso", "Duarte", "Hugo",
              "Vasco", "Fábio", "Paulo", "Sérgio", "Manuel"]
PT_LAST = ["Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa", "Rodrigues", "Martins",
           "Jesus", "Sousa", "Fernandes", "Gonçalves", "Gomes", "Lopes", "Marques", "Alves",
           "Almeida", "Ribeiro", "Pinto", "Carvalho", "Teixeira", "Moreira", "Correia",
           "Mendes", "Nunes", "Soares", "Vieira", "Monteiro", "Cardoso", "Rocha", "Neves",
           "Coelho", "Cunha", "Pires", "Reis", "Simões", "Antunes", "Matos", "Fonseca",
           "Machado", "Araújo", "Barbosa", "Tavares", "Lourenço", "Figueiredo", "Azevedo",
           "Freitas", "Brito", "Magalhães", "Baptista"]

USED_NAMES = set()


def person(country, sex=None):
    if sex is None:
        sex = R.choice("FM")
    while True:
        if country == "ES":
            first = R.choice(ES_FIRST_F if sex == "F" else ES_FIRST_M)
            last = R.choice(ES_LAST) + (" " + R.choice(ES_LAST) if R.random() < 0.0 else "")
        else:
            first = R.choice(PT_FIRST_F if sex == "F" else PT_FIRST_M)
            last = R.choice(PT_LAST)
        if (first, last) not in USED_NAMES:
            USED_NAMES.add((first, last))
            return first, last, sex


# Medicines: brand, ingredient, strength_mg, form, pack, price, group, rx, controlled, fridge, generic
MEDICINES = [
    ("Gelocatil 650 mg", "paracetamol", 650, "tablet", 20, 2.95, "analgesic", 0, 0, 0, 0),
    ("Paracetamol Cinfa 1 g", "paracetamol", 1000, "tablet", 40, 2.50, "analgesic", 1, 0, 0, 1),
    ("Espidifen 400 mg", "ibuprofen", 400, "sachet", 20, 6.40, "analgesic", 0, 0, 0, 0),
    ("Ibuprofeno Normon 600 mg", "ibuprofen", 600, "tablet", 40, 2.97, "analgesic", 1, 0, 0, 1),
    ("Nolotil 575 mg", "metamizole", 575, "capsule", 20, 2.67, "analgesic", 1, 0, 0, 0),
    ("Adolonta 50 mg", "tramadol", 50, "capsule", 20, 3.71, "analgesic", 1, 0, 0, 0),
    ("Sevredol 10 mg", "morphine", 10, "tablet", 12, 4.18, "analgesic", 1, 1, 0, 0),
    ("Durogesic 25 mcg/h", "fentanyl", 4.2, "patch", 5, 26.84, "analgesic", 1, 1, 0, 0),
    ("Targin 10/5 mg", "oxycodone / naloxone", 10, "tablet", 28, 21.12, "analgesic", 1, 1, 0, 0),
    ("Clamoxyl 500 mg", "amoxicillin", 500, "capsule", 24, 2.42, "antibiotic", 1, 0, 0, 0),
    ("Augmentine 875/125 mg", "amoxicillin / clavulanic acid", 875, "tablet", 24, 5.34, "antibiotic", 1, 0, 0, 0),
    ("Amoxicilina/Ácido clavulánico Kern 875/125 mg", "amoxicillin / clavulanic acid", 875, "tablet", 24, 3.62, "antibiotic", 1, 0, 0, 1),
    ("Zitromax 500 mg", "azithromycin", 500, "tablet", 3, 6.72, "antibiotic", 1, 0, 0, 0),
    ("Monurol 3 g", "fosfomycin", 3000, "sachet", 1, 5.21, "antibiotic", 1, 0, 0, 0),
    ("Cipro Basics 500 mg", "ciprofloxacin", 500, "tablet", 10, 2.11, "antibiotic", 1, 0, 0, 1),
    ("Cardyl 20 mg", "atorvastatin", 20, "tablet", 28, 12.48, "cardiovascular", 1, 0, 0, 0),
    ("Atorvastatina Cinfa 20 mg", "atorvastatin", 20, "tablet", 28, 3.12, "cardiovascular", 1, 0, 0, 1),
    ("Renitec 10 mg", "enalapril", 10, "tablet", 28, 2.50, "cardiovascular", 1, 0, 0, 0),
    ("Norvas 5 mg", "amlodipine", 5, "tablet", 30, 4.98, "cardiovascular", 1, 0, 0, 0),
    ("Amlodipino Normon 5 mg", "amlodipine", 5, "tablet", 30, 1.77, "cardiovascular", 1, 0, 0, 1),
    ("Emconcor 5 mg", "bisoprolol", 5, "tablet", 60, 3.54, "cardiovascular", 1, 0, 0, 0),
    ("Eliquis 5 mg", "apixaban", 5, "tablet", 60, 53.95, "cardiovascular", 1, 0, 0, 0),
    ("Plavix 75 mg", "clopidogrel", 75, "tablet", 28, 8.93, "cardiovascular", 1, 0, 0, 0),
    ("Seguril 40 mg", "furosemide", 40, "tablet", 30, 1.54, "cardiovascular", 1, 0, 0, 0),
    ("Cozaar 50 mg", "losartan", 50, "tablet", 28, 6.36, "cardiovascular", 1, 0, 0, 0),
    ("Ventolin 100 mcg", "salbutamol", 0.1, "inhaler", 200, 2.91, "respiratory", 1, 0, 0, 0),
    ("Symbicort Turbuhaler 160/4.5", "budesonide / formoterol", 0.16, "inhaler", 120, 44.92, "respiratory", 1, 0, 0, 0),
    ("Spiriva 18 mcg", "tiotropium", 0.018, "inhaler", 30, 45.41, "respiratory", 1, 0, 0, 0),
    ("Orfidal 1 mg", "lorazepam", 1, "tablet", 50, 2.28, "nervous system", 1, 1, 0, 0),
    ("Valium 5 mg", "diazepam", 5, "tablet", 30, 1.85, "nervous system", 1, 1, 0, 0),
    ("Trankimazin 0.5 mg", "alprazolam", 0.5, "tablet", 30, 1.84, "nervous system", 1, 1, 0, 0),
    ("Concerta 18 mg", "methylphenidate", 18, "tablet", 30, 38.23, "nervous system", 1, 1, 0, 0),
    ("Besitran 50 mg", "sertraline", 50, "tablet", 30, 6.97, "nervous system", 1, 0, 0, 0),
    ("Cipralex 10 mg", "escitalopram", 10, "tablet", 28, 10.02, "nervous system", 1, 0, 0, 0),
    ("Circadin 2 mg", "melatonin", 2, "tablet", 30, 16.95, "nervous system", 1, 0, 0, 0),
    ("Omeprazol Cinfa 20 mg", "omeprazole", 20, "capsule", 28, 2.46, "digestive", 1, 0, 0, 1),
    ("Pantecta 40 mg", "pantoprazole", 40, "tablet", 28, 6.85, "digestive", 1, 0, 0, 0),
    ("Almax 500 mg", "almagate", 500, "tablet", 48, 5.89, "digestive", 0, 0, 0, 0),
    ("Fortasec 2 mg", "loperamide", 2, "capsule", 10, 5.49, "digestive", 0, 0, 0, 0),
    ("Dianben 850 mg", "metformin", 850, "tablet", 50, 2.23, "endocrine", 1, 0, 0, 0),
    ("Lantus SoloStar 100 U/ml", "insulin glargine", None, "injection", 5, 50.86, "endocrine", 1, 0, 1, 0),
    ("Ozempic 1 mg", "semaglutide", 1, "injection", 1, 120.22, "endocrine", 1, 0, 1, 0),
    ("Eutirox 50 mcg", "levothyroxine", 0.05, "tablet", 100, 3.04, "endocrine", 1, 0, 0, 0),
    ("Humira 40 mg", "adalimumab", 40, "injection", 2, 1012.30, "endocrine", 1, 0, 1, 0),
    ("Clarityne 10 mg", "loratadine", 10, "tablet", 20, 7.25, "allergy", 0, 0, 0, 0),
    ("Zyrtec 10 mg", "cetirizine", 10, "tablet", 20, 8.10, "allergy", 0, 0, 0, 0),
    ("Aerius 5 mg", "desloratadine", 5, "tablet", 20, 5.81, "allergy", 1, 0, 0, 0),
    ("Lexxema 0.1% crema", "methylprednisolone", None, "cream", 1, 4.60, "dermatological", 1, 0, 0, 0),
    ("Fucidine 2% crema", "fusidic acid", None, "cream", 1, 3.97, "dermatological", 1, 0, 0, 0),
    ("Nicotinell 21 mg/24 h", "nicotine", 21, "patch", 14, 29.95, "dermatological", 0, 0, 0, 0),
    ("Xalatan 50 mcg/ml", "latanoprost", None, "eye drops", 1, 13.18, "ophthalmic", 1, 0, 1, 0),
    ("Hylo-Comod", "hyaluronic acid", None, "eye drops", 1, 11.95, "ophthalmic", 0, 0, 0, 0),
    ("Vaxigrip Tetra", "influenza vaccine", None, "injection", 1, 13.86, "vaccine", 1, 0, 1, 0),
    ("Comirnaty JN.1", "COVID-19 mRNA vaccine", None, "injection", 1, 19.50, "vaccine", 1, 0, 1, 0),
    ("Prevenar 20", "pneumococcal vaccine", None, "injection", 1, 72.56, "vaccine", 1, 0, 1, 0),
    ("Shingrix", "herpes zoster vaccine", None, "injection", 1, 168.30, "vaccine", 1, 0, 1, 0),
    ("Diftavax", "tetanus-diphtheria vaccine", None, "injection", 1, 9.46, "vaccine", 1, 0, 1, 0),
    ("Engerix-B 20 mcg", "hepatitis B vaccine", None, "injection", 1, 24.15, "vaccine", 1, 0, 1, 0),
    ("Nitroplast 10 mg/24 h", "glyceryl trinitrate", 10, "patch", 30, 10.19, "cardiovascular", 1, 0, 0, 0),
    ("Mounjaro 5 mg", "tirzepatide", 5, "injection", 4, 305.40, "endocrine", 1, 0, 1, 0),
]
NEVER_DISPENSED = {"Nitroplast 10 mg/24 h", "Mounjaro 5 mg"}
MED_ID = {m[0]: i + 1 for i, m in enumerate(MEDICINES)}
MED = {i + 1: m for i, m in enumerate(MEDICINES)}
GENERIC_OF = {  # brand -> generic with the same ingredient and strength
    MED_ID["Cardyl 20 mg"]: MED_ID["Atorvastatina Cinfa 20 mg"],
    MED_ID["Norvas 5 mg"]: MED_ID["Amlodipino Normon 5 mg"],
    MED_ID["Augmentine 875/125 mg"]: MED_ID["Amoxicilina/Ácido clavulánico Kern 875/125 mg"],
}
VACCINES = [i for i, m in MED.items() if m[6] == "vaccine"]
OTC = [i for i, m in MED.items() if m[7] == 0]
CHRONIC = [MED_ID[n] for n in ["Cardyl 20 mg", "Atorvastatina Cinfa 20 mg", "Renitec 10 mg",
                               "Norvas 5 mg", "Emconcor 5 mg", "Eliquis 5 mg", "Plavix 75 mg",
                               "Seguril 40 mg", "Cozaar 50 mg", "Symbicort Turbuhaler 160/4.5",
                               "Spiriva 18 mcg", "Ventolin 100 mcg", "Dianben 850 mg",
                               "Lantus SoloStar 100 U/ml", "Ozempic 1 mg", "Eutirox 50 mcg",
                               "Besitran 50 mg", "Cipralex 10 mg", "Orfidal 1 mg",
                               "Omeprazol Cinfa 20 mg", "Pantecta 40 mg", "Xalatan 50 mcg/ml",
                               "Targin 10/5 mg", "Durogesic 25 mcg/h", "Concerta 18 mg",
                               "Humira 40 mg", "Trankimazin 0.5 mg", "Circadin 2 mg"]]
CHRONIC_W = [5, 3, 5, 4, 4, 3, 2, 3, 3, 2, 2, 3, 5, 2, 1, 4, 3, 3, 3, 5, 2, 2, 1, 1, 1, 1, 2, 1]
ACUTE = [MED_ID[n] for n in ["Paracetamol Cinfa 1 g", "Ibuprofeno Normon 600 mg", "Nolotil 575 mg",
                             "Adolonta 50 mg", "Sevredol 10 mg", "Clamoxyl 500 mg",
                             "Augmentine 875/125 mg", "Amoxicilina/Ácido clavulánico Kern 875/125 mg",
                             "Zitromax 500 mg", "Monurol 3 g", "Cipro Basics 500 mg",
                             "Valium 5 mg", "Aerius 5 mg", "Lexxema 0.1% crema",
                             "Fucidine 2% crema", "Omeprazol Cinfa 20 mg"]]
ACUTE_W = [6, 6, 4, 2, 1, 4, 4, 3, 3, 2, 2, 2, 2, 2, 2, 3]
DOSAGE = {"tablet": ["1 tablet every 8 hours", "1 tablet every 12 hours", "1 tablet daily",
                     "1 tablet at night"],
          "capsule": ["1 capsule every 8 hours", "1 capsule daily before breakfast"],
          "sachet": ["1 sachet as a single dose", "1 sachet every 8 hours"],
          "inhaler": ["2 puffs when needed", "1 inhalation every 12 hours"],
          "injection": ["as directed by the doctor", "1 injection weekly", "10 units at night"],
          "cream": ["apply twice daily"],
          "eye drops": ["1 drop in each eye at night"],
          "patch": ["1 patch every 72 hours", "1 patch daily"]}

# name, city, country, type, public
CLINICS = [
    ("Centro de Salud Lavapiés", "Madrid", "ES", "primary care", 1),
    ("Centro de Salud Eloy Gonzalo", "Madrid", "ES", "primary care", 1),
    ("Hospital Universitario La Paz", "Madrid", "ES", "hospital", 1),
    ("Clínica Ruber Juan Bravo", "Madrid", "ES", "private clinic", 0),
    ("CAP Vila de Gràcia", "Barcelona", "ES", "primary care", 1),
    ("Hospital Clínic de Barcelona", "Barcelona", "ES", "hospital", 1),
    ("Centro de Salud Ruzafa", "Valencia", "ES", "primary care", 1),
    ("Clínica Quirónsalud Valencia", "Valencia", "ES", "private clinic", 0),
    ("Centro de Salud Triana", "Sevilla", "ES", "primary care", 1),
    ("Hospital Virgen del Rocío", "Sevilla", "ES", "hospital", 1),
    ("USF Alfama", "Lisboa", "PT", "primary care", 1),
    ("Hospital de Santa Maria", "Lisboa", "PT", "hospital", 1),
    ("Hospital da Luz Lisboa", "Lisboa", "PT", "private clinic", 0),
    ("USF Bonfim", "Porto", "PT", "primary care", 1),
    ("Hospital de São João", "Porto", "PT", "hospital", 1),
    ("USF Braga Norte", "Braga", "PT", "primary care", 1),
]
SPEC_BY_TYPE = {
    "primary care": ["family medicine"] * 5 + ["paediatrics"],
    "hospital": ["cardiology", "psychiatry", "endocrinology", "pulmonology", "internal medicine"],
    "private clinic": ["dermatology", "cardiology", "family medicine", "endocrinology"],
}

WHOLESALERS = [
    ("Cofares", "ES", 1),
    ("Bidafarma", "ES", 1),
    ("Hefame", "ES", 1),
    ("Alliance Healthcare España", "ES", 0),
    ("OCP Portugal", "PT", 0),
    ("Plural - Cooperativa Farmacêutica", "PT", 1),
    ("Alliance Healthcare Portugal", "PT", 0),
    ("Empifarma", "PT", 0),
]
WH_BY_COUNTRY = {"ES": [1, 2, 3, 4], "PT": [5, 6, 7]}
WH_W = {"ES": [5, 3, 2, 2], "PT": [5, 4, 2]}

# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------

rows = {}

# pharmacies
rows["pharmacies"] = [(i + 1,) + p for i, p in enumerate(PHARMACIES)]

# staff
STAFF_PLAN = {  # pharmacy -> list of (role, part_time)
    1: ["pharmacist", "pharmacist", "pharmacist", "technician", "counter assistant", "counter assistant"],
    2: ["pharmacist", "pharmacist", "technician", "counter assistant", "counter assistant"],
    3: ["pharmacist", "pharmacist", "technician", "technician", "counter assistant"],
    4: ["pharmacist", "pharmacist", "counter assistant", "counter assistant"],
    5: ["pharmacist", "pharmacist", "technician", "counter assistant"],
    6: ["pharmacist", "pharmacist", "technician", "counter assistant"],
    7: ["pharmacist", "pharmacist", "pharmacist", "technician", "counter assistant", "counter assistant"],
    8: ["pharmacist", "pharmacist", "technician", "counter assistant", "counter assistant"],
    9: ["pharmacist", "pharmacist", "counter assistant"],
}
staff = []  # dicts
sid = 0
lic_seen = set()
for ph in range(1, 10):
    country = PH_COUNTRY[ph]
    head = None
    pharmacists = []
    for k, role in enumerate(STAFF_PLAN[ph]):
        sid += 1
        first, last, sex = person(country)
        if ph == 9:
            hired = d("2025-10-01") if k < 2 else d("2025-10-06")
        elif k == 0:
            hired = rand_date(d("2008-01-01"), d("2020-12-31"))
        else:
            hired = rand_date(d("2014-01-01"), d("2023-12-31"))
        if ph in (3, 5) and k == len(STAFF_PLAN[ph]) - 1:
            hired = d("2025-02-03") if ph == 3 else d("2024-09-16")
        left = None
        if role == "pharmacist":
            while True:
                if country == "ES":
                    lic = "COF-%s-%d" % (PROVINCE[PH_CITY[ph]], R.randint(1000, 9999))
                else:
                    lic = "OF-%d" % R.randint(10000, 29999)
                if lic not in lic_seen:
                    lic_seen.add(lic)
                    break
            supervisor = head
            rate = money(R.uniform(24, 32) if k == 0 else R.uniform(19, 25))
            cert = 1 if (PHARMACIES[ph - 1][7] or R.random() < 0.4) else 0
        else:
            lic = None
            supervisor = R.choice(pharmacists)
            rate = money(R.uniform(13, 17) if role == "technician" else R.uniform(10.5, 13))
            cert = 0
        part = 1 if (k > 0 and R.random() < 0.25) else 0
        row = dict(id=sid, code="EMP-%04d" % (100 + sid * 7), first=first, last=last, ph=ph,
                   role=role, sup=supervisor, lic=lic, hired=hired, left=left, rate=rate,
                   part=part, cert=cert)
        staff.append(row)
        if role == "pharmacist":
            pharmacists.append(sid)
            if k == 0:
                head = sid
# one counter assistant in Valencia left in June 2025, one technician in Porto in March 2024
for s in staff:
    if s["ph"] == 4 and s["role"] == "counter assistant":
        s["left"] = d("2025-06-30")
        break
for s in staff:
    if s["ph"] == 8 and s["role"] == "technician":
        s["left"] = d("2024-03-15")
        break
STAFF = {s["id"]: s for s in staff}


def active_staff(ph, day, roles=None, cert=False):
    out = []
    for s in staff:
        if s["ph"] != ph or s["hired"] > day or (s["left"] and s["left"] < day):
            continue
        if roles and s["role"] not in roles:
            continue
        if cert and not s["cert"]:
            continue
        out.append(s["id"])
    return out


# clinics and doctors
rows["clinics"] = [(i + 1,) + c for i, c in enumerate(CLINICS)]
doctors = []
did = 0
lic_seen = set()
for ci, c in enumerate(CLINICS, start=1):
    n = {"primary care": 3, "hospital": 3, "private clinic": 2}[c[3]]
    if c[1] in ("Madrid", "Lisboa"):
        n += 1
    specs = list(SPEC_BY_TYPE[c[3]])
    R.shuffle(specs)
    for k in range(n):
        did += 1
        first, last, _ = person(c[2])
        spec = specs[k % len(specs)] if c[3] != "primary care" else ("paediatrics" if k == n - 1 and n > 3 else "family medicine")
        while True:
            if c[2] == "ES":
                lic = "COL-%s-%05d" % (PROVINCE[c[1]], R.randint(10000, 52000))
            else:
                lic = "OM-%05d" % R.randint(20000, 68000)
            if lic not in lic_seen:
                lic_seen.add(lic)
                break
        doctors.append(dict(id=did, first=first, last=last, clinic=ci, spec=spec, lic=lic,
                            city=c[1]))
DOC_BY_CITY = {}
for doc in doctors:
    DOC_BY_CITY.setdefault(doc["city"], []).append(doc["id"])
# a few doctors never prescribe anything that reaches the group
SILENT_DOCTORS = set()
for city in ("Madrid", "Valencia", "Lisboa"):
    SILENT_DOCTORS.add(DOC_BY_CITY[city][-1])
for city in DOC_BY_CITY:
    DOC_BY_CITY[city] = [x for x in DOC_BY_CITY[city] if x not in SILENT_DOCTORS]

DOC = {x["id"]: x for x in doctors}
SPECIALIST_FOR = {"cardiovascular": "cardiology", "endocrine": "endocrinology",
                  "respiratory": "pulmonology", "nervous system": "psychiatry"}

# patients
PATIENTS_PER_PH = {1: 70, 2: 55, 3: 55, 4: 45, 5: 40, 6: 45, 7: 60, 8: 50, 9: 14}
ALLERGIES = ["penicillin", "ibuprofen", "sulfonamides", "latex", "aspirin", "codeine"]
patients = []
pid = 0
for ph in range(1, 10):
    for _ in range(PATIENTS_PER_PH[ph]):
        pid += 1
        first, last, sex = person(PH_COUNTRY[ph])
        if ph == 9:
            reg = rand_date(d("2025-10-01"), d("2025-12-10"))
        elif R.random() < 0.6:
            reg = rand_date(d("2016-01-01"), d("2023-12-31"))
        else:
            reg = rand_date(d("2024-01-02"), d("2025-11-30"))
        chronic = 1 if R.random() < 0.45 else 0
        exempt = 1 if R.random() < (0.3 if chronic else 0.08) else 0
        allergy = R.choice(ALLERGIES) if R.random() < 0.12 else None
        patients.append(dict(id=pid, code="PT-%05d" % (10000 + pid * 3 + R.randint(0, 2)),
                             first=first, last=last, sex=sex, city=PH_CITY[ph], ph=ph, reg=reg,
                             chronic=chronic, exempt=exempt, allergy=allergy))
PAT = {p["id"]: p for p in patients}
# some patients never came back after registering (no prescriptions, no purchases)
INACTIVE = set(p["id"] for p in patients if R.random() < 0.05)

# prescriptions
raw_rx = []  # (date, patient, doctor, electronic, repeat, items[(med, packs, dose, days)])
for p in patients:
    if p["id"] in INACTIVE:
        continue
    first_day = max(p["reg"], PH_ACTIVE_FROM[p["ph"]])
    if first_day > END - dt.timedelta(days=5):
        continue
    docs = DOC_BY_CITY[p["city"]]
    family = [x for x in docs if DOC[x]["spec"] == "family medicine"]
    own_doc = R.choice(family)
    if p["chronic"]:
        k = R.choice([1, 1, 2, 2, 3])
        meds = []
        while len(meds) < k:
            m = R.choices(CHRONIC, CHRONIC_W)[0]
            if m not in meds:
                meds.append(m)
        # repeat prescriptions every ~90 days
        day = first_day + dt.timedelta(days=R.randint(0, 60))
        while day <= END - dt.timedelta(days=3):
            items = []
            for m in meds:
                form = MED[m][3]
                items.append((m, R.choice([1, 2, 3]), R.choice(DOSAGE[form]), 90))
            doc = own_doc
            spec = SPECIALIST_FOR.get(MED[meds[0]][6])
            specialists = [x for x in docs if DOC[x]["spec"] == spec]
            if specialists and R.random() < 0.35:
                doc = R.choice(specialists)
            raw_rx.append((day, p["id"], doc, 1, 1, items))
            day += dt.timedelta(days=R.randint(80, 100))
    n_acute = R.choice([0, 1, 1, 2, 2, 3, 4])
    for _ in range(n_acute):
        day = rand_date(first_day, END - dt.timedelta(days=2))
        k = R.choice([1, 1, 1, 2, 2, 3])
        meds = []
        while len(meds) < k:
            m = R.choices(ACUTE, ACUTE_W)[0]
            if m not in meds:
                meds.append(m)
        items = [(m, R.choice([1, 1, 2]), R.choice(DOSAGE[MED[m][3]]), R.choice([3, 5, 7, 10, 14]))
                 for m in meds]
        if MED[meds[0]][3] == "cream":
            pool = [x for x in docs if DOC[x]["spec"] in ("dermatology", "family medicine")]
        else:
            pool = [x for x in docs if DOC[x]["spec"] in ("family medicine", "paediatrics",
                                                           "internal medicine")]
        doc = own_doc if R.random() < 0.6 else R.choice(pool)
        raw_rx.append((day, p["id"], doc, 1 if R.random() < 0.85 else 0, 0, items))
raw_rx.sort(key=lambda r: (r[0], r[1]))

prescriptions, items = [], []
seq_by_year = {}
item_id = 0
for i, (day, pat, doc, elec, rep, its) in enumerate(raw_rx, start=1):
    seq_by_year[day.year] = seq_by_year.get(day.year, 0) + 1
    valid = day + dt.timedelta(days=365 if rep else (10 if not elec else 90))
    prescriptions.append(dict(id=i, num="RX-%d-%04d" % (day.year, seq_by_year[day.year]),
                              pat=pat, doc=doc, day=day, valid=valid, elec=elec, rep=rep))
    for (m, packs, dose, days) in its:
        item_id += 1
        items.append(dict(id=item_id, rx=i, med=m, packs=packs, dose=dose, days=days, day=day,
                          pat=pat))

# dispensings
raw_disp = []  # dict without id/code
for it in items:
    if R.random() < 0.08:
        continue  # never collected
    p = PAT[it["pat"]]
    ph = p["ph"]
    if ph != 9 and R.random() < 0.1:
        ph = R.choice([x for x in range(1, 9) if PH_COUNTRY[x] == PH_COUNTRY[p["ph"]]])
    day = it["day"] + dt.timedelta(days=R.choice([0, 0, 0, 1, 1, 2, 3, 5, 8]))
    if day > END:
        continue
    pharmacists = active_staff(ph, day, roles=["pharmacist"])
    everyone = active_staff(ph, day)
    disp_by = R.choice(everyone)
    checkers = [x for x in pharmacists if x != disp_by]
    chk = R.choice(checkers)
    med = it["med"]
    subst = 0
    if med in GENERIC_OF and R.random() < 0.4:
        med = GENERIC_OF[med]
        subst = 1
    packs = it["packs"]
    total = money(MED[med][5] * packs)
    if p["exempt"]:
        paid, rate = 0.0, 0
    elif MED[med][5] > 40:
        # high-cost medicines: reduced contribution, 10 % capped at 4.24 per pack
        paid, rate = money(min(total * 0.1, 4.24 * packs)), 10
    elif PH_COUNTRY[ph] == "ES":
        rate = R.choice([10, 40, 50, 60])
        paid = money(total * rate / 100)
    else:
        rate = R.choice([10, 31, 63, 85])
        paid = money(total * rate / 100)
    raw_disp.append(dict(ph=ph, pat=p["id"], item=it["id"], med=med, by=disp_by, chk=chk,
                         day=day, packs=packs, total=total, paid=paid, rate=rate,
                         subst=subst))

# over-the-counter sales
OTC_W = {MED_ID["Gelocatil 650 mg"]: 8, MED_ID["Espidifen 400 mg"]: 5, MED_ID["Almax 500 mg"]: 3,
         MED_ID["Fortasec 2 mg"]: 3, MED_ID["Clarityne 10 mg"]: 3, MED_ID["Zyrtec 10 mg"]: 3,
         MED_ID["Nicotinell 21 mg/24 h"]: 1, MED_ID["Hylo-Comod"]: 2}
otc_meds = sorted(OTC_W)
otc_w = [OTC_W[m] for m in otc_meds]
OTC_PER_PH = {1: 150, 2: 120, 3: 110, 4: 80, 5: 80, 6: 90, 7: 120, 8: 100, 9: 12}
for ph in range(1, 10):
    pats_here = [p["id"] for p in patients if p["ph"] == ph and p["id"] not in INACTIVE]
    for _ in range(OTC_PER_PH[ph]):
        day = rand_date(PH_ACTIVE_FROM[ph], END)
        med = R.choices(otc_meds, otc_w)[0]
        # allergy season for antihistamines
        if MED[med][6] == "allergy" and day.month not in (3, 4, 5, 6):
            new_day = day.replace(month=R.choice([3, 4, 5, 6]), day=min(day.day, 28))
            if new_day >= PH_ACTIVE_FROM[ph]:
                day = new_day
            else:
                med = MED_ID["Gelocatil 650 mg"]
        pat = None
        if R.random() < 0.35:
            cands = [x for x in pats_here if PAT[x]["reg"] <= day]
            if cands:
                pat = R.choice(cands)
        packs = 1 if R.random() < 0.85 else 2
        total = money(MED[med][5] * packs)
        raw_disp.append(dict(ph=ph, pat=pat, item=None, med=med,
                             by=R.choice(active_staff(ph, day)), chk=None, day=day, packs=packs,
                             total=total, paid=total, rate=None, subst=0))
raw_disp.sort(key=lambda r: (r["day"], r["ph"], r["item"] or 0, r["med"]))
dispensings = []
seq_by_year = {}
for i, r in enumerate(raw_disp, start=1):
    y = r["day"].year
    seq_by_year[y] = seq_by_year.get(y, 0) + 1
    r["id"] = i
    r["code"] = "DSP-%d-%05d" % (y, seq_by_year[y])
    dispensings.append(r)

# stock orders
ORDERS_PER_MONTH = {1: 2.2, 2: 1.8, 3: 1.8, 4: 1.2, 5: 1.2, 6: 1.4, 7: 1.8, 8: 1.6, 9: 1.5}
raw_orders = []
for ph in range(1, 10):
    country = PH_COUNTRY[ph]
    # what this pharmacy sells, for ordering
    sold = {}
    for r in dispensings:
        if r["ph"] == ph:
            sold[r["med"]] = sold.get(r["med"], 0) + r["packs"]
    if ph in (1, 2, 6, 7, 8):
        for v in VACCINES:
            sold[v] = sold.get(v, 0) + 10
    sold_meds = sorted(sold)
    sold_w = [sold[m] for m in sold_meds]
    month = dt.date(PH_ACTIVE_FROM[ph].year, PH_ACTIVE_FROM[ph].month, 1)
    while month <= END:
        n = int(ORDERS_PER_MONTH[ph]) + (1 if R.random() < ORDERS_PER_MONTH[ph] % 1 else 0)
        for _ in range(n):
            last = (month.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)
            day = rand_date(max(month, PH_ACTIVE_FROM[ph]), last)
            wh = R.choices(WH_BY_COUNTRY[country], WH_W[country])[0]
            by = R.choice(active_staff(ph, day, roles=["pharmacist", "technician"]))
            urgent = 1 if R.random() < 0.12 else 0
            if day >= d("2025-12-27"):
                status, delivered = "pending", None
            elif R.random() < 0.04:
                status, delivered = "cancelled", None
            else:
                status = "delivered"
                delivered = day + dt.timedelta(days=0 if urgent else R.choice([1, 1, 1, 2, 3]))
                if delivered > END:
                    status, delivered = "pending", None
            k = R.randint(2, 6)
            lines = []
            chosen = []
            while len(chosen) < min(k, len(sold_meds)):
                m = R.choices(sold_meds, sold_w)[0]
                if m not in chosen:
                    chosen.append(m)
            for m in chosen:
                q = R.choice([2, 3, 5, 5, 10, 10, 12, 20, 24, 30])
                if MED[m][5] > 100:
                    q = R.choice([1, 2])
                cost = money(MED[m][5] * R.uniform(0.68, 0.76))
                if status == "delivered":
                    rec = q if R.random() > 0.07 else max(0, q - R.randint(1, q))
                else:
                    rec = None
                lines.append((m, q, rec, cost))
            raw_orders.append(dict(ph=ph, wh=wh, by=by, day=day, status=status,
                                   delivered=delivered, urgent=urgent, lines=lines))
        month = (month.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
raw_orders.sort(key=lambda o: (o["day"], o["ph"]))
orders, order_lines = [], []
seq_by_year = {}
lid = 0
for i, o in enumerate(raw_orders, start=1):
    y = o["day"].year
    seq_by_year[y] = seq_by_year.get(y, 0) + 1
    o["id"] = i
    o["num"] = "PO-%d-%04d" % (y, seq_by_year[y])
    orders.append(o)
    for (m, q, rec, cost) in o["lines"]:
        lid += 1
        order_lines.append((lid, i, m, q, rec, cost))

# vaccinations
VACC_PHARM = [1, 2, 6, 7, 8]
FEES = {"ES": {"influenza vaccine": 15.0, "COVID-19 mRNA vaccine": 15.0},
        "PT": {"influenza vaccine": 8.5, "COVID-19 mRNA vaccine": 8.5}}
raw_vacc = []
batch_codes = {}


def batch_for(med, season_year, country):
    key = (med, season_year, country)
    if key not in batch_codes:
        prefix = {"influenza vaccine": "FLU", "COVID-19 mRNA vaccine": "COV",
                  "pneumococcal vaccine": "PNE", "herpes zoster vaccine": "HZV",
                  "tetanus-diphtheria vaccine": "TDV", "hepatitis B vaccine": "HBV"}[MED[med][1]]
        batch_codes[key] = "%s%02d-%s%03d" % (prefix, season_year % 100, R.choice("ABCDEFKM"),
                                             R.randint(100, 999))
    return batch_codes[key]


for ph in VACC_PHARM:
    country = PH_COUNTRY[ph]
    pats_here = [p["id"] for p in patients if p["ph"] == ph and p["id"] not in INACTIVE]
    for season in (2024, 2025):
        for pat in pats_here:
            p = PAT[pat]
            day_lo = max(p["reg"], dt.date(season, 10, 1))
            if day_lo > dt.date(season, 12, 20):
                continue
            if R.random() < (0.45 if p["chronic"] else 0.18):
                day = rand_date(day_lo, dt.date(season, 12, 20))
                flu = MED_ID["Vaxigrip Tetra"]
                raw_vacc.append(dict(pat=pat, ph=ph, med=flu, day=day, dose=1,
                                     funded=1 if (p["chronic"] or country == "PT") else 0))
                if R.random() < 0.5:
                    raw_vacc.append(dict(pat=pat, ph=ph, med=MED_ID["Comirnaty JN.1"], day=day,
                                         dose=1, funded=1 if p["chronic"] else 0))
    for pat in pats_here:
        p = PAT[pat]
        r = R.random()
        if p["reg"] > d("2025-04-30"):
            continue
        if r < 0.05:
            day = rand_date(max(p["reg"], START), d("2025-06-30"))
            raw_vacc.append(dict(pat=pat, ph=ph, med=MED_ID["Shingrix"], day=day, dose=1, funded=0))
            raw_vacc.append(dict(pat=pat, ph=ph, med=MED_ID["Shingrix"],
                                 day=day + dt.timedelta(days=R.randint(60, 150)), dose=2, funded=0))
        elif r < 0.10:
            day = rand_date(max(p["reg"], START), END)
            raw_vacc.append(dict(pat=pat, ph=ph, med=MED_ID["Prevenar 20"], day=day, dose=1,
                                 funded=1 if p["chronic"] else 0))
        elif r < 0.14:
            day = rand_date(max(p["reg"], START), END)
            raw_vacc.append(dict(pat=pat, ph=ph, med=MED_ID["Diftavax"], day=day, dose=1, funded=0))
        elif r < 0.16 and country == "ES":
            day = rand_date(max(p["reg"], START), d("2025-04-30"))
            for dose, gap in ((1, 0), (2, 30), (3, 180)):
                raw_vacc.append(dict(pat=pat, ph=ph, med=MED_ID["Engerix-B 20 mcg"],
                                     day=day + dt.timedelta(days=gap), dose=dose, funded=0))
raw_vacc = [v for v in raw_vacc if v["day"] <= END]
raw_vacc.sort(key=lambda v: (v["day"], v["ph"], v["pat"], v["med"]))
vaccinations = []
for i, v in enumerate(raw_vacc, start=1):
    v["id"] = i
    v["by"] = R.choice(active_staff(v["ph"], v["day"], roles=["pharmacist"], cert=True))
    season = v["day"].year
    v["batch"] = batch_for(v["med"], season, PH_COUNTRY[v["ph"]])
    v["site"] = "left arm" if R.random() < 0.7 else "right arm"
    ing = MED[v["med"]][1]
    if v["funded"]:
        v["fee"] = None
    else:
        base = FEES[PH_COUNTRY[v["ph"]]].get(ing)
        if base is None:
            base = {"ES": 10.0, "PT": 6.0}[PH_COUNTRY[v["ph"]]]
        v["fee"] = money(base + MED[v["med"]][5])
    vaccinations.append(v)

# adverse reactions
REACTIONS = {"rash": 5, "nausea": 4, "dizziness": 4, "swelling": 2, "headache": 3, "fever": 2}
raw_ar = []
disp_cands = [r for r in dispensings if r["pat"] is not None and r["item"] is not None]
for r in R.sample(disp_cands, 34):
    day = r["day"] + dt.timedelta(days=R.randint(2, 20))
    if day > END:
        day = END
    rtype = R.choices(sorted(REACTIONS), [REACTIONS[k] for k in sorted(REACTIONS)])[0]
    if MED[r["med"]][6] == "antibiotic" and R.random() < 0.5:
        rtype = "rash"
    raw_ar.append(dict(pat=r["pat"], med=r["med"], vacc=None, ph=r["ph"], day=day, rtype=rtype))
for v in R.sample(vaccinations, 14):
    day = v["day"] + dt.timedelta(days=R.randint(1, 4))
    if day > END:
        day = END
    rtype = R.choice(["sore arm", "sore arm", "fever", "headache", "swelling"])
    raw_ar.append(dict(pat=v["pat"], med=v["med"], vacc=v["id"], ph=v["ph"], day=day, rtype=rtype))
raw_ar.sort(key=lambda a: (a["day"], a["pat"]))
adverse = []
seq_by_year = {}
for i, a in enumerate(raw_ar, start=1):
    y = a["day"].year
    seq_by_year[y] = seq_by_year.get(y, 0) + 1
    a["id"] = i
    a["code"] = "AR-%d-%03d" % (y, seq_by_year[y])
    a["by"] = R.choice(active_staff(a["ph"], a["day"], roles=["pharmacist"]))
    sev = R.choices(["mild", "moderate", "severe"], [6, 3, 1])[0]
    if a["rtype"] == "sore arm":
        sev = "mild"
    a["sev"] = sev
    a["hosp"] = 1 if sev == "severe" and R.random() < 0.7 else 0
    a["agency"] = 1 if sev != "mild" or R.random() < 0.3 else 0
    a["resolved"] = 0 if (a["day"] > d("2025-12-01") or (sev == "severe" and R.random() < 0.4)
                          or R.random() < 0.08) else 1
    adverse.append(a)

# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------


def lit(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e12:
            return "%.2f" % v
        return repr(round(v, 4))
    if isinstance(v, dt.date):
        return "'%s'" % v.isoformat()
    return "'%s'" % str(v).replace("'", "''")


def inserts(table, cols, data, out):
    out.append("")
    for i in range(0, len(data), 200):
        chunk = data[i:i + 200]
        out.append("INSERT INTO %s (%s) VALUES" % (table, ", ".join(cols)))
        out.append(",\n".join("  (" + ", ".join(lit(v) for v in row) + ")" for row in chunk) + ";")


out = [HEADER, DDL]
inserts("pharmacies", ["pharmacy_id", "pharmacy_code", "name", "city", "country_code",
                       "joined_group_on", "floor_area_m2", "is_open_24h", "has_vaccination_room",
                       "has_dispensing_robot"], rows["pharmacies"], out)
inserts("staff", ["staff_id", "employee_code", "first_name", "last_name", "pharmacy_id", "role",
                  "supervisor_id", "licence_number", "hired_on", "left_on", "hourly_rate_eur",
                  "is_part_time", "is_vaccination_certified"],
        [(s["id"], s["code"], s["first"], s["last"], s["ph"], s["role"], s["sup"], s["lic"],
          s["hired"], s["left"], s["rate"], s["part"], s["cert"]) for s in staff], out)
inserts("clinics", ["clinic_id", "name", "city", "country_code", "clinic_type", "is_public"],
        rows["clinics"], out)
inserts("doctors", ["doctor_id", "first_name", "last_name", "clinic_id", "specialty",
                    "licence_number"],
        [(x["id"], x["first"], x["last"], x["clinic"], x["spec"], x["lic"]) for x in doctors], out)
inserts("patients", ["patient_id", "patient_code", "first_name", "last_name", "sex", "city",
                     "home_pharmacy_id", "registered_on", "has_chronic_condition",
                     "is_copay_exempt", "allergy_notes"],
        [(p["id"], p["code"], p["first"], p["last"], p["sex"], p["city"], p["ph"], p["reg"],
          p["chronic"], p["exempt"], p["allergy"]) for p in patients], out)
cn_seen = set()
med_rows = []
for i, m in MED.items():
    while True:
        cn = "CN-%06d" % R.randint(600000, 999999)
        if cn not in cn_seen:
            cn_seen.add(cn)
            break
    strength = None if m[2] is None else float(m[2])
    med_rows.append((i, cn, m[0], m[1], strength, m[3], m[4], float(m[5]), m[6], m[7], m[8],
                     m[9], m[10]))
inserts("medicines", ["medicine_id", "national_code", "brand_name", "active_ingredient",
                      "strength_mg", "form", "pack_size", "price_eur", "therapeutic_group",
                      "is_prescription_only", "is_controlled", "is_refrigerated", "is_generic"],
        med_rows, out)
inserts("wholesalers", ["wholesaler_id", "name", "country_code", "is_cooperative"],
        [(i + 1,) + w for i, w in enumerate(WHOLESALERS)], out)
inserts("prescriptions", ["prescription_id", "rx_number", "patient_id", "doctor_id", "issued_on",
                          "valid_until", "is_electronic", "is_repeat"],
        [(x["id"], x["num"], x["pat"], x["doc"], x["day"], x["valid"], x["elec"], x["rep"])
         for x in prescriptions], out)
inserts("prescription_items", ["prescription_item_id", "prescription_id", "medicine_id",
                               "packs_prescribed", "dosage_instructions", "treatment_days"],
        [(x["id"], x["rx"], x["med"], x["packs"], x["dose"], x["days"]) for x in items], out)
inserts("dispensings", ["dispensing_id", "dispensing_code", "pharmacy_id", "patient_id",
                        "prescription_item_id", "medicine_id", "dispensed_by_id", "checked_by_id",
                        "dispensed_on", "packs", "total_price_eur", "copay_pct", "patient_paid_eur",
                        "was_substituted"],
        [(r["id"], r["code"], r["ph"], r["pat"], r["item"], r["med"], r["by"], r["chk"], r["day"],
          r["packs"], float(r["total"]), r["rate"], float(r["paid"]), r["subst"]) for r in dispensings], out)
inserts("stock_orders", ["stock_order_id", "order_number", "pharmacy_id", "wholesaler_id",
                         "ordered_by_id", "ordered_on", "status", "delivered_on", "is_urgent"],
        [(o["id"], o["num"], o["ph"], o["wh"], o["by"], o["day"], o["status"], o["delivered"],
          o["urgent"]) for o in orders], out)
inserts("stock_order_lines", ["line_id", "stock_order_id", "medicine_id", "packs_ordered",
                              "packs_received", "unit_cost_eur"],
        [(a, b, c, q, rec, float(cost)) for (a, b, c, q, rec, cost) in order_lines], out)
inserts("vaccinations", ["vaccination_id", "patient_id", "pharmacy_id", "medicine_id",
                         "administered_by_id", "given_on", "dose_number", "batch_number",
                         "injection_site", "is_funded", "fee_eur"],
        [(v["id"], v["pat"], v["ph"], v["med"], v["by"], v["day"], v["dose"], v["batch"],
          v["site"], v["funded"], v["fee"]) for v in vaccinations], out)
inserts("adverse_reactions", ["reaction_id", "report_code", "patient_id", "medicine_id",
                              "vaccination_id", "reported_by_id", "reported_on", "reaction_type",
                              "severity", "was_hospitalised", "was_reported_to_agency", "resolved"],
        [(a["id"], a["code"], a["pat"], a["med"], a["vacc"], a["by"], a["day"], a["rtype"],
          a["sev"], a["hosp"], a["agency"], a["resolved"]) for a in adverse], out)

with open(OUT, "w", encoding="utf-8", newline="\n") as f:
    f.write("\n".join(out) + "\n")
print("wrote %s" % OUT)
