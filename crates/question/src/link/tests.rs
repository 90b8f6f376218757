use super::*;
use crate::analysis::analyse;
use crate::schema::{Collection, Field, Relation};

fn schema() -> SourceSchema {
    SourceSchema {
        collections: vec![
            Collection::new(
                "vehicles",
                vec![
                    Field::new("vehicle_id", FieldKind::Integer).with_key(KeyRole::Primary),
                    Field::new("vin", FieldKind::Keyword),
                    Field::new("model", FieldKind::Keyword),
                    Field::new("list_price", FieldKind::Number),
                    Field::new("retired", FieldKind::Flag).with_values(&["0", "1"]),
                    Field::new("fuel_type", FieldKind::Keyword).with_values(&["electric", "diesel", "petrol"]),
                ],
            ),
            Collection::new(
                "members",
                vec![
                    Field::new("member_id", FieldKind::Integer).with_key(KeyRole::Primary),
                    Field::new("first_name", FieldKind::Keyword),
                    Field::new("last_name", FieldKind::Keyword),
                    Field::new("country", FieldKind::Keyword).with_values(&["CA", "US", "GB"]),
                    Field::new("is_active", FieldKind::Flag),
                    Field::new("is_reviewer", FieldKind::Flag),
                    Field::new("phone_number", FieldKind::Keyword),
                    Field::new("enrollment_date", FieldKind::Date),
                ],
            ),
            Collection::new("bookings", vec![Field::new("booking_id", FieldKind::Integer), Field::new("member_id", FieldKind::Integer).with_key(KeyRole::Foreign), Field::new("booked_at", FieldKind::Date), Field::new("mechanic_name", FieldKind::Keyword).with_values(&["Strand", "Okafor"]), Field::new("satisfactionRating", FieldKind::Integer)]),
            Collection::new("repairs", vec![Field::new("repair_id", FieldKind::Integer).with_key(KeyRole::Primary), Field::new("started_at", FieldKind::Date), Field::new("hours_on_site", FieldKind::Number), Field::new("km_driven", FieldKind::Number)]),
        ],
        relations: vec![Relation { from: "bookings".into(), from_field: "member_id".into(), to: "members".into(), to_field: "member_id".into() }],
        aliases: vec![],
    }
}

fn best(q: &str) -> Vec<(String, String)> {
    let s = schema();
    let a = analyse(q, chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, None);
    cover(&links, a.tokens.len()).into_iter().map(|m| (m.best().words.join(" "), format!("{}{}", if m.best().negated { "NOT " } else { "" }, m.best().target.label()))).collect()
}

#[test]
fn fields_said_naturally() {
    let b = best("List the VIN, model and list price of electric vehicles, cheapest first");
    assert_eq!(b, [("vin".into(), "vehicles.vin".into()), ("model".into(), "vehicles.model".into()), ("list price".into(), "vehicles.list_price".into()), ("electric".into(), "vehicles.fuel_type = 'electric'".into()), ("vehicles".into(), "vehicles".into())]);
    let b = best("How many vehicles are retired?");
    assert!(b.contains(&("retired".into(), "vehicles.retired".into())), "{b:?}");
    let b = best("Which mechanic fixes the most cars?");
    assert_eq!(b[0], ("mechanic".into(), "bookings.mechanic_name".into()));
    let b = best("bookings with a satisfaction rating of 2");
    assert!(b.contains(&("satisfaction rating".into(), "bookings.satisfactionRating".into())), "{b:?}");
    let b = best("Give first name, last name and the number of bookings");
    assert!(b.contains(&("first name".into(), "members.first_name".into())) && b.contains(&("last name".into(), "members.last_name".into())), "{b:?}");
}

#[test]
fn flags_negated_codes_families_and_typos() {
    let b = best("How many inactive members?");
    assert_eq!(b[0], ("inactive".into(), "NOT members.is_active".into()));
    // Plain English opposites of a flag's state.
    let b = best("How many vehicles are in service?");
    assert!(!b.iter().any(|(_, t)| t.contains("retired")), "{b:?}");
    let s = SourceSchema { collections: vec![Collection::new("checks", vec![Field::new("passed", FieldKind::Flag)])], relations: vec![], aliases: vec![] };
    let a = crate::analysis::analyse("How many checks failed?", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, None);
    assert!(links.iter().any(|l| l.words == ["failed"] && l.negated && l.target.field() == Some("passed")), "{links:?}");
    assert!(s.is_flag_word("passed") && !s.is_flag_word("failed"));
    // A country's name stored in a column not about countries (a sales region) still names the
    // code of a country column.
    let s = SourceSchema {
        collections: vec![
            Collection::new("customers", vec![Field::new("country_code", FieldKind::Keyword).with_values(&["DE", "NL", "BE", "FR", "LU"])]),
            Collection::new("reps", vec![Field::new("region", FieldKind::Keyword).with_values(&["Germany", "Benelux"])]),
        ],
        relations: vec![],
        aliases: vec![],
    };
    let a = crate::analysis::analyse("customers in Germany", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, None);
    assert!(links.iter().any(|l| l.target.label().contains("'DE'")), "{links:?}");
    let b = best("How many members live in Canada (country code CA)?");
    assert!(b.contains(&("country code ca".into(), "members.country = 'CA'".into())), "{b:?}");
    // A short code needs capitals: "us" the pronoun is no country.
    let b = best("tell us about members");
    assert!(!b.iter().any(|(_, t)| t.contains("'US'")), "{b:?}");
    let b = best("members enrolled in 2024");
    assert!(b.contains(&("enrolled".into(), "members.enrollment_date".into())), "{b:?}");
    let b = best("how many vehicels run on diesl");
    assert!(b.contains(&("vehicels".into(), "vehicles".into())) && b.contains(&("diesl".into(), "vehicles.fuel_type = 'diesel'".into())), "{b:?}");
}

struct Names;

impl ValueLookup for Names {
    fn lookup(&mut self, text: &str) -> Vec<(String, String, String)> {
        match text {
            "Priya" => vec![("members".into(), "first_name".into(), "Priya".into())],
            "Raman" => vec![("members".into(), "last_name".into(), "Raman".into())],
            "VIN-0042" => vec![("vehicles".into(), "vin".into(), "VIN-0042".into())],
            _ => vec![],
        }
    }
}

#[test]
fn literals_are_looked_up_in_the_source() {
    let s = schema();
    let a = analyse("bookings of Priya Raman", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, Some(&mut Names));
    let m = cover(&links, a.tokens.len());
    let labels: Vec<String> = m.iter().map(|m| m.best().target.label()).collect();
    assert_eq!(labels, ["bookings", "members.first_name = 'Priya'", "members.last_name = 'Raman'"]);
    // A code glued by a hyphen is asked about as written.
    let a = analyse("bookings of VIN-0042", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, Some(&mut Names));
    assert!(cover(&links, a.tokens.len()).iter().any(|m| m.best().target.label() == "vehicles.vin = 'VIN-0042'"));
}

#[test]
fn leading_units_and_verbs_of_participle_dates() {
    // A measure named by its unit first ("hours_on_site", "km_driven") is said by the unit.
    let b = best("how many hours did the repairs take in total");
    assert!(b.contains(&("hours".into(), "repairs.hours_on_site".into())), "{b:?}");
    let b = best("total km of repairs");
    assert!(b.contains(&("km".into(), "repairs.km_driven".into())), "{b:?}");
    // "start" is the verb of `started_at`.
    let b = best("when did the last repair start");
    assert!(b.contains(&("start".into(), "repairs.started_at".into())), "{b:?}");
}

#[test]
fn a_verb_of_a_flag_noun_is_its_family_not_a_misspelling() {
    let s = schema();
    let a = analyse("members who reviewed", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, None);
    let l = links.iter().find(|l| l.words == ["reviewed"]).expect("reviewed is linked");
    assert_eq!((l.target.label(), l.how), ("members.is_reviewer".to_string(), How::Family), "{links:?}");
    // "number of" is a count's words, never a name said in part.
    let a = analyse("the average number of bookings", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    assert!(!Linker::new(&s).link(&a, None).iter().any(|l| l.words == ["number"]));
}

#[test]
fn country_names_find_country_codes() {
    let b = best("members living in the UK");
    assert!(b.contains(&("uk".into(), "members.country = 'GB'".into())), "{b:?}");
    let b = best("How many members are from Canada?");
    assert!(b.contains(&("canada".into(), "members.country = 'CA'".into())), "{b:?}");
    let b = best("List the British members");
    assert!(b.contains(&("british".into(), "members.country = 'GB'".into())), "{b:?}");
    // A code in capitals is a value; the pronoun is not.
    let b = best("members in the US");
    assert!(b.contains(&("us".into(), "members.country = 'US'".into())), "{b:?}");
}

#[test]
fn a_capitalised_value_is_misspelt_only_capitalised() {
    let b = best("what does the code stand for in bookings");
    assert!(!b.iter().any(|(_, t)| t.contains("'Strand'")), "{b:?}");
    let b = best("bookings of Strnad");
    assert!(b.iter().any(|(_, t)| t.contains("'Strand'")), "{b:?}");
}


#[test]
fn a_value_said_as_stored_beats_the_singular_of_another() {
    let s = SourceSchema {
        collections: vec![Collection::new(
            "staff",
            vec![Field::new("first_name", FieldKind::Keyword).with_values(&["Bram", "Wouter"]), Field::new("last_name", FieldKind::Keyword).with_values(&["Wouters", "Yilmaz"])],
        )],
        relations: vec![],
        aliases: vec![],
    };
    let a = analyse("What is Bram Wouters's hourly rate?", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, None);
    let labels: Vec<String> = cover(&links, a.tokens.len()).into_iter().map(|m| m.best().target.label()).collect();
    assert!(labels.contains(&"staff.last_name = 'Wouters'".to_string()), "{labels:?}");
}

/// Two people tables that both hold the first name 'Elena' and the last name 'Flores', only
/// one of them as one person.
fn people() -> SourceSchema {
    let person = |t: &str| Collection::new(t, vec![Field::new("id", FieldKind::Integer).with_key(KeyRole::Primary), Field::new("first_name", FieldKind::Keyword).with_values(&["Elena", "Jo"]), Field::new("last_name", FieldKind::Keyword).with_values(&["Flores", "Kim"])]);
    SourceSchema { collections: vec![person("patients"), person("staff")], relations: vec![], aliases: vec![] }
}

/// Answers whether a record holds a pair as the source would: only staff holds Elena Flores.
struct Rows {
    asked: usize,
    answers: bool,
}

impl ValueLookup for Rows {
    fn lookup(&mut self, _text: &str) -> Vec<(String, String, String)> {
        Vec::new()
    }

    fn record_holds(&mut self, collection: &str, pairs: &[(String, String)]) -> Option<bool> {
        self.asked += 1;
        self.answers.then(|| collection == "staff" && pairs.iter().any(|(f, v)| f == "first_name" && v == "Elena") && pairs.iter().any(|(f, v)| f == "last_name" && v == "Flores"))
    }
}

#[test]
fn a_full_name_is_read_in_the_table_one_of_whose_rows_holds_it() {
    let s = people();
    let a = analyse("Who supervises Elena Flores?", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let mut rows = Rows { asked: 0, answers: true };
    let links = Linker::new(&s).link(&a, Some(&mut rows));
    let tables: Vec<&str> = links.iter().filter(|l| matches!(l.target, Target::Value { .. })).map(|l| l.target.collection()).collect();
    assert!(rows.asked >= 2 && !tables.is_empty() && tables.iter().all(|t| *t == "staff"), "{tables:?}");
    // A source that cannot say leaves both readings (the planner asks which).
    let mut silent = Rows { asked: 0, answers: false };
    let links = Linker::new(&s).link(&a, Some(&mut silent));
    let mut tables: Vec<&str> = links.iter().filter(|l| matches!(l.target, Target::Value { .. })).map(|l| l.target.collection()).collect();
    tables.dedup();
    assert!(tables.contains(&"patients") && tables.contains(&"staff"), "{tables:?}");
}

#[test]
fn a_plural_names_a_capitalised_value_unless_a_lower_case_one_is_there() {
    let species = Collection::new("species", vec![Field::new("species_id", FieldKind::Integer).with_key(KeyRole::Primary), Field::new("common_name", FieldKind::Keyword).with_values(&["Hedgehog", "Barn owl"])]);
    let objects = Collection::new("objects", vec![Field::new("object_id", FieldKind::Integer).with_key(KeyRole::Primary), Field::new("object_type", FieldKind::Keyword).with_values(&["sculpture", "painting"]), Field::new("department", FieldKind::Keyword).with_values(&["Sculpture", "Prints"])]);
    let s = SourceSchema { collections: vec![species, objects], relations: vec![], aliases: vec![] };
    let labels = |q: &str| -> Vec<String> {
        let a = analyse(q, chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
        Linker::new(&s).link(&a, None).iter().filter(|l| matches!(l.target, Target::Value { .. })).map(|l| l.target.label()).collect()
    };
    assert!(labels("How many hedgehogs did we admit?").contains(&"species.common_name = 'Hedgehog'".to_string()));
    let b = labels("How many sculptures are on display?");
    assert!(b.contains(&"objects.object_type = 'sculpture'".to_string()) && !b.iter().any(|l| l.contains("'Sculpture'")), "{b:?}");
}

#[test]
fn a_number_glued_to_its_unit_is_said_spelt_out() {
    let shops = Collection::new("pharmacies", vec![Field::new("pharmacy_id", FieldKind::Integer).with_key(KeyRole::Primary), Field::new("is_open_24h", FieldKind::Flag).with_values(&["0", "1"])]);
    let s = SourceSchema { collections: vec![shops], relations: vec![], aliases: vec![] };
    let a = analyse("Which pharmacies are open 24 hours?", chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap());
    let links = Linker::new(&s).link(&a, None);
    let m = cover(&links, a.tokens.len());
    assert!(m.iter().any(|m| m.best().target.label() == "pharmacies.is_open_24h" && m.best().words.join(" ") == "open 24 hours"), "{m:?}");
}
