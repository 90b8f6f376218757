//! The real embedding model through candle: shape, normalisation, semantics, and that padding in a
//! batch does not change a text's vector.

use std::path::PathBuf;

use qa::embed::{BertEmbedder, Embedder};

fn model() -> BertEmbedder {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    BertEmbedder::load(&dir, 256, 8).expect("run scripts/setup-models.sh first")
}

#[test]
fn embeddings_are_unit_vectors_with_sensible_similarities() {
    let m = model();
    assert_eq!(m.dimension(), 384);
    assert_eq!(m.max_tokens(), 256);
    let v = m
        .embed(&["The battery lasts for months in deep sleep.", "Deep sleep gives a long battery life.", "Grafana draws dashboards of time series."])
        .unwrap();
    for x in &v {
        let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
    let close = qa::embed::dot(&v[0], &v[1]);
    let far = qa::embed::dot(&v[0], &v[2]);
    assert!(close > 0.6 && far < 0.3 && close > far + 0.3, "close {close}, far {far}");
}

#[test]
fn padding_in_a_batch_does_not_change_a_vector() {
    let m = model();
    let short = "An I2C bus needs pull-up resistors.";
    let long = "The MQTT broker receives a JSON payload from the station every five minutes, stores retained messages, and forwards them to subscribers such as Telegraf, which writes them into the time-series database for Grafana to plot.";
    let alone = m.embed(&[short]).unwrap().remove(0);
    let batched = m.embed(&[long, short]).unwrap().remove(1);
    let cos = qa::embed::dot(&alone, &batched);
    assert!(cos > 0.9999, "padding changed the embedding: cos {cos}");
}

#[test]
fn texts_beyond_the_window_are_truncated_not_rejected() {
    let m = model();
    let huge = "word ".repeat(2000);
    let v = m.embed(&[huge.as_str()]).unwrap();
    assert_eq!(v[0].len(), 384);
}

#[test]
fn missing_model_folder_is_a_clear_error() {
    let err = BertEmbedder::load(std::path::Path::new("/nonexistent"), 256, 8).err().unwrap().to_string();
    assert!(err.contains("scripts/setup-models.sh") && err.contains("config.json"), "{err}");
}
