//! The money columns of a table, and the one that is its rows' amount.

use qa_question::{names, FieldKind};

use super::ir::ColRef;
use super::read::Reader;

impl Reader<'_> {
    /// Of a table's money columns, the one its rows' amount is: the only one, else the only
    /// one named by a generic money word alone (`amount_eur` beside `insurer_share_eur`).
    pub(super) fn main_money(&self, table: &str) -> Option<ColRef> {
        let money = self.money_columns(table);
        if let [one] = money.as_slice() {
            return Some(one.clone());
        }
        let generic: Vec<&ColRef> = money.iter().filter(|c| qa_question::names::is_generic_money_name(&c.column)).collect();
        match generic.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    pub(super) fn money_columns(&self, table: &str) -> Vec<ColRef> {
        self.schema.collection(table).map_or_else(Vec::new, |c| {
            c.fields.iter().filter(|f| f.kind.is_numeric() && f.kind != FieldKind::Flag && f.key == qa_question::KeyRole::None && qa_question::names::is_money_name(&f.name)).map(|f| ColRef::new(&c.name, &f.name)).collect()
        })
    }

    /// "350 euros an hour" of `hourly_rate_eur`, "10 euros a kilo" of `cost_per_kg_eur`, "40
    /// euros a pack" of a price: the words after a compared amount (at `end`) that say what one
    /// amount is of are the comparison's.
    pub(super) fn rate_unit_after_amount(&mut self, end: usize, col: &ColRef, role: &str) {
        if matches!(self.word(end), "a" | "an" | "per")
            && let Some(per) = qa_question::numbers::unit_of(self.word(end + 1))
        {
            let words = names::name_words(&col.column);
            let hourly = per.name == "hour" && words.iter().any(|w| matches!(w.as_str(), "hourly"));
            let per_unit = words.windows(2).any(|w| w[0] == "per" && qa_question::numbers::unit_of(&w[1]).is_some_and(|x| x.name == per.name));
            if hourly || per_unit {
                self.mark(end..end + 2, role.to_string());
            }
        } else if matches!(self.word(end), "a" | "an" | "per" | "each")
            && self.a.tokens.get(end + 1).is_some_and(|t| t.is_word() && t.lower.chars().all(char::is_alphabetic))
            && !names::name_words(&col.column).iter().any(|w| matches!(w.as_str(), "total" | "sum" | "overall"))
        {
            // "more than 40 euros a pack": the price of one of what the rows sell. (A word that
            // names something of the compared table says more than that.)
            let mention = self.ms.iter().position(|m| m.start <= end + 1 && end + 1 < m.end);
            let strong = |l: &&&qa_question::Link| matches!(l.target, qa_question::link::Target::Collection { .. }) || matches!(l.how, qa_question::link::How::Name | qa_question::link::How::Core | qa_question::link::How::Synonym);
            if mention.is_some_and(|mi| self.ms[mi].end != end + 2 || self.readings(mi).iter().filter(strong).any(|l| l.target.collection().eq_ignore_ascii_case(&col.table))) {
                return;
            }
            let said = format!("{role} (a price per {})", self.word(end + 1));
            self.mark(end..end + 2, said.clone());
            if let Some(mi) = mention {
                self.consume(mi, said);
            }
        }
    }
}
