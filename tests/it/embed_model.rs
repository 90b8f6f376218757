//! The real embedding model through candle: shape, normalisation, semantics, and that padding in a
//! batch does not change a text's vector.

use std::path::PathBuf;

use qa_embed::{BertEmbedder, Embedder};

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
    let close = qa_embed::dot(&v[0], &v[1]);
    let far = qa_embed::dot(&v[0], &v[2]);
    assert!(close > 0.6 && far < 0.3 && close > far + 0.3, "close {close}, far {far}");
}

#[test]
fn padding_in_a_batch_does_not_change_a_vector() {
    let m = model();
    let short = "An I2C bus needs pull-up resistors.";
    let long = "The MQTT broker receives a JSON payload from the station every five minutes, stores retained messages, and forwards them to subscribers such as Telegraf, which writes them into the time-series database for Grafana to plot.";
    let alone = m.embed(&[short]).unwrap().remove(0);
    let batched = m.embed(&[long, short]).unwrap().remove(1);
    let cos = qa_embed::dot(&alone, &batched);
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

/// A model folder laid out like another BERT-family checkpoint: tensors under a `bert.` prefix
/// (as some exports have) and CLS pooling declared in `1_Pooling/config.json` (as bge does).
#[test]
fn other_bert_family_layouts_load() {
    use candle_core::{safetensors, Device};
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let dir = tempfile::tempdir().unwrap();
    for f in ["config.json", "tokenizer.json", "sentence_bert_config.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let tensors = safetensors::load(src.join("model.safetensors"), &Device::Cpu).unwrap();
    let prefixed: std::collections::HashMap<String, candle_core::Tensor> =
        tensors.into_iter().map(|(k, v)| (format!("bert.{k}"), v)).collect();
    safetensors::save(&prefixed, dir.path().join("model.safetensors")).unwrap();

    let text = ["A radiation shield keeps sunlight off the sensor."];
    let original = model().embed(&text).unwrap().remove(0);
    let prefixed_model = BertEmbedder::load(dir.path(), 256, 8).unwrap();
    assert_eq!(prefixed_model.pooling(), qa_embed::Pooling::Mean);
    let same = prefixed_model.embed(&text).unwrap().remove(0);
    assert!(qa_embed::dot(&original, &same) > 0.99999, "prefixed checkpoint gives another vector");

    std::fs::create_dir(dir.path().join("1_Pooling")).unwrap();
    std::fs::write(dir.path().join("1_Pooling/config.json"), r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#).unwrap();
    let cls = BertEmbedder::load(dir.path(), 256, 8).unwrap();
    assert_eq!(cls.pooling(), qa_embed::Pooling::Cls);
    assert_ne!(cls.model_id(), prefixed_model.model_id(), "pooling is part of the model id");
    let v = cls.embed(&text).unwrap().remove(0);
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4);
    assert!(qa_embed::dot(&original, &v) < 0.99, "CLS pooling must differ from mean pooling");
}
