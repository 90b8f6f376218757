//! Pagination metadata of direct answers: more than [`PAGE_SIZE`] rows give the total and the
//! offset of the next page.

use serde::{Deserialize, Serialize};

/// Rows per page of a direct answer.
pub const PAGE_SIZE: usize = 50;

/// Where a page sits in the whole result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    /// Rows in the whole result.
    pub total: u64,
    /// Index of the page's first row.
    pub offset: usize,
    /// Rows per page.
    pub page_size: usize,
    /// Rows on this page.
    pub returned: usize,
    /// Offset of the next page, when there is one.
    pub next_offset: Option<usize>,
    /// Whether rows follow this page.
    pub has_more: bool,
}

/// The page at `offset` of a result of `total` rows, `page_size` rows per page (0 means
/// [`PAGE_SIZE`]).
pub fn paginate(total: u64, offset: usize, page_size: usize) -> Pagination {
    let page_size = if page_size == 0 { PAGE_SIZE } else { page_size };
    let end = (offset as u64).saturating_add(page_size as u64).min(total);
    let returned = end.saturating_sub(offset as u64) as usize;
    let has_more = end < total;
    Pagination { total, offset, page_size, returned, next_offset: has_more.then_some(end as usize), has_more }
}
