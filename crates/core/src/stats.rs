//! The one percentile definition every figure uses (`qa eval`, `qa bench`, `qa traces stats`).

/// Nearest-rank percentile of sorted values: the value at rank ⌈p/100 · n⌉ (1-based, clamped to
/// 1..=n), exact; `None` for no values.
pub fn nearest_rank(sorted: &[f64], p: u32) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = (p as usize * n).div_ceil(100).clamp(1, n);
    Some(sorted[rank - 1])
}

/// [`nearest_rank`], with 0 for no values.
pub fn percentile(sorted: &[f64], p: u32) -> f64 {
    nearest_rank(sorted, p).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_on_known_data() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 50), Some(10.0));
        assert_eq!(nearest_rank(&v, 95), Some(19.0));
        assert_eq!(nearest_rank(&v, 99), Some(20.0));
        assert_eq!(nearest_rank(&v, 100), Some(20.0));
        assert_eq!(nearest_rank(&v, 0), Some(1.0));
        assert_eq!(nearest_rank(&[], 50), None);
        assert_eq!(percentile(&[], 50), 0.0);
        assert_eq!(percentile(&[3.0], 95), 3.0);
    }
}
