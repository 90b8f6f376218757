//! `qa-index`: what `qa index` writes and `qa ask` reads — corpus loading ([`corpus`]), chunking
//! ([`chunk`]), the HNSW vector index ([`vector`]), the BM25 lexical index ([`lexical`]), the seam behind the dense and lexical lanes ([`store`]) and the
//! generations of an index on disk ([`index_store`]).

pub mod chunk;
pub mod corpus;
pub mod index_store;
pub mod lexical;
pub mod store;
pub mod vector;
