//! The money columns of a table, and the one that is its rows' amount.

use qa_question::FieldKind;

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
}
