//! The real embedding model: shape, normalisation, semantics, that a text's vector does not depend
//! on its batch, and that every arithmetic the CPU offers stays within a cosine of 0.999 of F32.

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

/// Texts of every length the indexer sees: a question, a heading, a paragraph, a full window.
fn varied_texts() -> Vec<String> {
    let paragraph = "Ownership is a set of rules that govern how a program manages memory. Some languages have garbage collection that regularly looks for no-longer-used memory as the program runs; in other languages, the programmer must explicitly allocate and free the memory. Rust uses a third approach: memory is managed through a system of ownership with a set of rules that the compiler checks.";
    vec![
        "What does the borrow checker do?".to_string(),
        "Storing Keys with Associated Values in Hash Maps".to_string(),
        paragraph.to_string(),
        format!("{paragraph} {paragraph} {paragraph}"),
        "| Column | Type | Notes |\n|---|---|---|\n| id | integer | primary key |".to_string(),
    ]
}

/// Every arithmetic this CPU offers keeps each vector within a cosine of 0.999 of F32's; one it
/// lacks is refused with the setting to change.
#[test]
fn every_precision_agrees_with_f32_or_is_refused() {
    use qa_embed::Precision;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let texts = varied_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let exact = BertEmbedder::load_with_precision(&dir, 256, 8, Precision::F32).unwrap();
    assert_eq!(exact.precision(), Precision::F32);
    let want = exact.embed(&refs).unwrap();
    for precision in [Precision::Auto, Precision::Int8, Precision::Bf16] {
        match BertEmbedder::load_with_precision(&dir, 256, 8, precision) {
            Ok(m) => {
                assert!(precision == Precision::Auto || m.precision() == precision);
                assert_eq!(m.model_id(), exact.model_id(), "the arithmetic is not part of the model id");
                for (t, (got, want)) in refs.iter().zip(m.embed(&refs).unwrap().iter().zip(&want)) {
                    let cos = qa_embed::dot(got, want);
                    assert!(cos >= 0.999, "{precision}: cosine {cos} to F32 for {t:?}");
                }
            }
            Err(e) => {
                assert!(!precision.supported(), "{precision} is supported but failed to load: {e}");
                assert!(e.to_string().contains("embed_precision"), "{e}");
            }
        }
    }
}

/// A text's vector depends on the text, not on the batch it is embedded in (texts of other
/// lengths around it, a different batch size).
#[test]
fn a_vector_does_not_depend_on_its_batch() {
    let m = model();
    let texts = varied_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let together = m.embed(&refs).unwrap();
    for (i, t) in refs.iter().enumerate() {
        let alone = m.embed(&[t]).unwrap().remove(0);
        let cos = qa_embed::dot(&alone, &together[i]);
        assert!(cos > 0.99999, "text {i} changed with its batch: cos {cos}");
    }
}
