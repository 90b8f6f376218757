//! The lexical lane's index: BM25 over every chunk (tantivy), with the document title and the
//! chunk's heading path as their own fields, so a question that names a document's subject ranks
//! that document's passages first even when the passage itself only says "she" or "it".
//!
//! Words are lower-cased and stemmed (English); the query keeps only the question's content words
//! (stop words and question forms dropped) and is built from term queries directly, so no query
//! syntax in a question can change its meaning.

use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

use qa_core::error::{QaError, Result};

/// Folder of the lexical index inside an index generation.
pub const DIR: &str = "lexical";

/// Weight of a title match relative to a body match: the title names what the whole document is
/// about.
pub const TITLE_BOOST: f32 = 2.0;
/// Weight of a heading-path match.
pub const HEADING_BOOST: f32 = 1.5;

/// One chunk as the lexical index sees it.
pub struct LexicalDoc<'a> {
    /// Row of the chunk in the generation's id map.
    pub row: usize,
    /// Title of the chunk's document (empty when it has none).
    pub title: &'a str,
    /// The chunk's heading path, joined.
    pub headings: &'a str,
    /// The chunk's text.
    pub body: &'a str,
}

struct Fields {
    row: Field,
    title: Field,
    headings: Field,
    body: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer("en_stem").set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let row = b.add_u64_field("row", NumericOptions::default().set_fast());
    let title = b.add_text_field("title", text.clone());
    let headings = b.add_text_field("headings", text.clone());
    let body = b.add_text_field("body", text);
    (b.build(), Fields { row, title, headings, body })
}

fn err(what: &str, e: impl std::fmt::Display) -> QaError {
    QaError::Lexical(format!("{what}: {e}"))
}

/// Build the index in `dir` (created; must not exist yet).
pub fn build<'a>(dir: &Path, docs: impl IntoIterator<Item = LexicalDoc<'a>>) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| QaError::io("creating", dir, e))?;
    let (schema, f) = schema();
    let index = Index::create_in_dir(dir, schema).map_err(|e| err("creating the lexical index", e))?;
    // One thread, one segment: the index is small next to the embeddings and this keeps the
    // layout (and the BM25 statistics) identical from run to run.
    let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, 200_000_000).map_err(|e| err("opening the lexical index writer", e))?;
    for d in docs {
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.row, d.row as u64);
        doc.add_text(f.title, d.title);
        doc.add_text(f.headings, d.headings);
        doc.add_text(f.body, d.body);
        writer.add_document(doc).map_err(|e| err("adding a chunk to the lexical index", e))?;
    }
    writer.commit().map_err(|e| err("writing the lexical index", e))?;
    writer.wait_merging_threads().map_err(|e| err("finishing the lexical index", e))?;
    Ok(())
}

/// An opened lexical index.
pub struct LexicalIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl LexicalIndex {
    /// Open the index built in `dir` by [`build`].
    pub fn open(dir: &Path) -> Result<LexicalIndex> {
        let index = Index::open_in_dir(dir).map_err(|e| err("opening the lexical index", e))?;
        let (_, fields) = schema();
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| err("reading the lexical index", e))?;
        Ok(LexicalIndex { index, reader, fields })
    }

    /// Number of indexed chunks.
    pub fn len(&self) -> usize {
        self.reader.searcher().num_docs() as usize
    }

    /// Whether no chunk is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The question's content words as analysed terms (stemmed, lower case, deduplicated).
    pub fn query_terms(&self, question: &str) -> Vec<String> {
        let Ok(mut analyzer) = self.index.tokenizer_for_field(self.fields.body) else { return Vec::new() };
        let text = qa_core::text::content_words(question).join(" ");
        let mut out: Vec<String> = Vec::new();
        let mut stream = analyzer.token_stream(&text);
        while let Some(tok) = stream.next() {
            if !out.contains(&tok.text) {
                out.push(tok.text.clone());
            }
        }
        out
    }

    /// The `k` best chunks for `question` by BM25, as (row, score), best first; ties by row.
    pub fn search(&self, question: &str, k: usize) -> Result<Vec<(usize, f32)>> {
        let terms = self.query_terms(question);
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, boost) in [(self.fields.body, 1.0), (self.fields.title, TITLE_BOOST), (self.fields.headings, HEADING_BOOST)] {
            for t in &terms {
                let q: Box<dyn Query> = Box::new(TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs));
                clauses.push((Occur::Should, if boost == 1.0 { q } else { Box::new(BoostQuery::new(q, boost)) }));
            }
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score()).map_err(|e| err("searching the lexical index", e))?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let column = searcher.segment_reader(addr.segment_ord).fast_fields().u64("row").map_err(|e| err("reading the lexical index", e))?;
            if let Some(row) = column.first(addr.doc_id) {
                out.push((row as usize, score));
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_outrank_passing_mentions_and_rows_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DIR);
        let docs = [
            ("Shirley Temple", "", "She was an American actress and later a diplomat."),
            ("Kiss and Tell", "", "A comedy film starring Shirley Temple as Corliss Archer."),
            ("Solar charging", "Panels", "Panels charge the battery during the day."),
        ];
        build(&path, docs.iter().enumerate().map(|(row, (t, h, b))| LexicalDoc { row: row + 10, title: t, headings: h, body: b })).unwrap();
        let idx = LexicalIndex::open(&path).unwrap();
        assert_eq!(idx.len(), 3);
        let hits = idx.search("Who was Shirley Temple?", 5).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![10, 11]);
        // Stemming: "charging" finds "charge".
        assert_eq!(idx.search("charging batteries", 5).unwrap()[0].0, 12);
        // Stop words only: nothing to search, no error.
        assert!(idx.search("what is the", 5).unwrap().is_empty());
        // Query syntax in a question is just text.
        assert!(idx.search("title:\"Kiss\" AND -body:*", 5).is_ok());
    }
}
