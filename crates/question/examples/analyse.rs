//! Print the schema-free analysis of a question as JSON: `cargo run --example analyse -- "question"`.

fn main() {
    let q = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let a = qa_question::analyse(&q, chrono::Local::now().date_naive());
    match serde_json::to_string_pretty(&a) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("error: {e}"),
    }
}
