//! PostgreSQL behind [`SqlDatabase`] (the `postgres` feature): tokio-postgres, every call in a
//! `READ ONLY` transaction, extended query protocol only (see the contract in [`super`]).
//!
//! The connection owns a current-thread tokio runtime; every call is a `block_on` with a
//! client-side deadline (statement timeout + a grace period) in case the server stops
//! answering, after which the connection is dropped and reopened on next use. Rows are read
//! through a portal (`bind` + `query_portal(row_cap + 1)`), so no more than `row_cap + 1` rows
//! ever leave the server. Values are decoded by type from the binary format (NUMERIC too);
//! types without a decoder come back as `"<type name>"`.

use std::time::{Duration, Instant};

use qa_core::error::error_chain;
use serde_json::Value;
use tokio_postgres::types::{FromSql, Kind, Type};
use tokio_postgres::{Client, NoTls, Row};

use super::{MAX_SAMPLED_DISTINCT, SqlDatabase, ms, quote_ident, redacted, samples_from};
use crate::{ColumnInfo, ColumnKind, DbSchema, Dialect, ExecLimits, ForeignKey, QueryResult, SqlError, SqlUrl, TableInfo};

/// Extra time the client waits for the server beyond the statement timeout before it gives up
/// on the connection.
const CLIENT_GRACE: Duration = Duration::from_secs(3);

/// A PostgreSQL database: every call in its own `READ ONLY` transaction.
pub(super) struct PostgresDb {
    // The client (and its connection task) go before the runtime.
    client: Option<Client>,
    rt: tokio::runtime::Runtime,
    config: tokio_postgres::Config,
    url: SqlUrl,
    limits: ExecLimits,
}

impl PostgresDb {
    /// Connect to `url` (see the contract in [`super`]).
    pub(super) fn open(url: &SqlUrl, limits: ExecLimits) -> Result<PostgresDb, SqlError> {
        let mut config = url.pg_config().cloned().ok_or_else(|| SqlError::Url(format!("{} is not a PostgreSQL URL", redacted(url))))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_millis(limits.timeout_ms.max(1)));
        }
        if config.get_application_name().is_none() {
            config.application_name("qa");
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(SqlError::Runtime)?;
        let mut db = PostgresDb { client: None, rt, config, url: url.clone(), limits };
        db.connect()?;
        Ok(db)
    }

    fn connect(&mut self) -> Result<(), SqlError> {
        self.client = None;
        let config = self.config.clone();
        let wait = Duration::from_millis(self.limits.timeout_ms.max(1)) + CLIENT_GRACE;
        let res = self.rt.block_on(async move { tokio::time::timeout(wait, config.connect(NoTls)).await });
        let target = redacted(&self.url);
        match res {
            Err(_) => Err(SqlError::Connect { target, reason: format!("no answer within {} ms", wait.as_millis()) }),
            Ok(Err(e)) => Err(SqlError::Connect { target, reason: self.url.scrub(&pg_error_text(&e)) }),
            Ok(Ok((client, connection))) => {
                self.rt.spawn(async move {
                    let _ = connection.await;
                });
                self.client = Some(client);
                Ok(())
            }
        }
    }

    /// Run `op` on a live client with a client-side deadline; reconnects first when the
    /// connection was lost.
    fn run<T>(
        &mut self,
        timeout_ms: u64,
        op: impl for<'c> FnOnce(&'c mut Client) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, SqlError>> + 'c>>,
    ) -> Result<T, SqlError> {
        if self.client.as_ref().is_none_or(|c| c.is_closed()) {
            self.connect()?;
        }
        let client = self.client.as_mut().expect("connected above");
        let wait = Duration::from_millis(timeout_ms.max(1)) + CLIENT_GRACE;
        // The timer must be created inside the runtime.
        let res = self.rt.block_on(async move { tokio::time::timeout(wait, op(client)).await });
        match res {
            Ok(r) => r,
            Err(_) => {
                // The server did not answer in time: this connection's state is unknown.
                self.client = None;
                Err(SqlError::Timeout { ms: timeout_ms })
            }
        }
    }
}

/// A tokio-postgres error as one line of text: the server's message (with detail, hint and
/// SQLSTATE) or the client error with its causes.
fn pg_error_text(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let mut s = db.message().to_string();
        if let Some(d) = db.detail() {
            s.push_str(&format!(" (detail: {d})"));
        }
        if let Some(h) = db.hint() {
            s.push_str(&format!(" (hint: {h})"));
        }
        s.push_str(&format!(" [SQLSTATE {}]", db.code().code()));
        return s;
    }
    error_chain(e)
}

fn pg_error(e: &tokio_postgres::Error, url: &SqlUrl, timeout_ms: u64) -> SqlError {
    let reason = url.scrub(&pg_error_text(e));
    if let Some(code) = e.code() {
        let c = code.code();
        if c == "57014" {
            return SqlError::Timeout { ms: timeout_ms };
        }
        let transient = matches!(c, "40001" | "40P01" | "57P01" | "57P02" | "57P03") || c.starts_with("08");
        return SqlError::Query { reason, transient };
    }
    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
    SqlError::Query { reason, transient: e.is_closed() || io }
}

/// `BEGIN READ ONLY` + `SET LOCAL statement_timeout` (both fixed text).
async fn ro_begin(client: &mut Client, timeout_ms: u64) -> Result<tokio_postgres::Transaction<'_>, tokio_postgres::Error> {
    let tx = client.build_transaction().read_only(true).start().await?;
    tx.batch_execute(&format!("SET LOCAL statement_timeout = {}", timeout_ms.max(1))).await?;
    Ok(tx)
}

/// One fixed internal query in its own read-only transaction.
async fn ro_rows(client: &mut Client, sql: &str, params: &[&(dyn tokio_postgres::types::ToSql + Sync)], timeout_ms: u64) -> Result<Vec<Row>, tokio_postgres::Error> {
    let tx = ro_begin(client, timeout_ms).await?;
    let rows = tx.query(sql, params).await;
    let rb = tx.rollback().await;
    let rows = rows?;
    rb?;
    Ok(rows)
}

/// Any PostgreSQL value as JSON, decoded from the binary format by type.
struct PgValue(Value);

type BoxErr = Box<dyn std::error::Error + Sync + Send>;

impl<'a> FromSql<'a> for PgValue {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxErr> {
        Ok(PgValue(pg_value(ty, raw)))
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxErr> {
        Ok(PgValue(Value::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

fn number(f: f64) -> Value {
    serde_json::Number::from_f64(f).map(Value::Number).unwrap_or_else(|| Value::String(f.to_string()))
}

fn pg_value(ty: &Type, raw: &[u8]) -> Value {
    let fallback = || Value::String(format!("<{}>", ty.name()));
    let decoded: Result<Value, BoxErr> = (|| {
        Ok(match *ty {
            Type::BOOL => Value::Bool(bool::from_sql(ty, raw)?),
            Type::INT2 => Value::from(i16::from_sql(ty, raw)?),
            Type::INT4 => Value::from(i32::from_sql(ty, raw)?),
            Type::INT8 => Value::from(i64::from_sql(ty, raw)?),
            Type::OID => Value::from(u32::from_sql(ty, raw)?),
            Type::CHAR => Value::String(((i8::from_sql(ty, raw)? as u8) as char).to_string()),
            Type::FLOAT4 => number(f32::from_sql(ty, raw)? as f64),
            Type::FLOAT8 => number(f64::from_sql(ty, raw)?),
            Type::NUMERIC => numeric_value(&decode_numeric(raw)?),
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => Value::String(String::from_utf8_lossy(raw).into_owned()),
            Type::DATE => Value::String(chrono::NaiveDate::from_sql(ty, raw)?.format("%Y-%m-%d").to_string()),
            Type::TIMESTAMP => Value::String(chrono::NaiveDateTime::from_sql(ty, raw)?.format("%Y-%m-%dT%H:%M:%S%.f").to_string()),
            Type::TIMESTAMPTZ => Value::String(chrono::DateTime::<chrono::Utc>::from_sql(ty, raw)?.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
            Type::TIME => Value::String(chrono::NaiveTime::from_sql(ty, raw)?.format("%H:%M:%S%.f").to_string()),
            Type::JSON | Type::JSONB => Value::from_sql(ty, raw)?,
            Type::UUID if raw.len() == 16 => {
                let h: String = raw.iter().map(|b| format!("{b:02x}")).collect();
                Value::String(format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]))
            }
            _ => match ty.kind() {
                Kind::Enum(_) => Value::String(String::from_utf8_lossy(raw).into_owned()),
                Kind::Domain(inner) => pg_value(inner, raw),
                Kind::Array(_) => Value::Array(Vec::<PgValue>::from_sql(ty, raw)?.into_iter().map(|v| v.0).collect()),
                _ => fallback(),
            },
        })
    })();
    decoded.unwrap_or_else(|_| fallback())
}

/// A NUMERIC text as a JSON number: an integer when it has no fraction and fits, else f64;
/// NaN / infinities stay strings.
fn numeric_value(text: &str) -> Value {
    if !text.contains(['.', 'e', 'E'])
        && let Ok(i) = text.parse::<i64>()
    {
        return Value::from(i);
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => number(f),
        _ => Value::String(text.to_string()),
    }
}

/// NUMERIC's binary format (ndigits, weight, sign, dscale, base-10000 digits) as decimal text.
fn decode_numeric(raw: &[u8]) -> Result<String, BoxErr> {
    if raw.len() < 8 {
        return Err("numeric: short buffer".into());
    }
    let rd = |i: usize| u16::from_be_bytes([raw[i], raw[i + 1]]);
    let ndigits = rd(0) as usize;
    let weight = rd(2) as i16 as i32;
    let sign = rd(4);
    let dscale = rd(6) as usize;
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        0x0000 | 0x4000 => {}
        _ => return Err("numeric: bad sign".into()),
    }
    if raw.len() < 8 + 2 * ndigits {
        return Err("numeric: short buffer".into());
    }
    let digits: Vec<u16> = (0..ndigits).map(|i| rd(8 + 2 * i)).collect();
    if digits.iter().any(|&d| d >= 10000) {
        return Err("numeric: bad digit".into());
    }
    let digit = |i: i32| -> u16 { if i >= 0 && (i as usize) < ndigits { digits[i as usize] } else { 0 } };
    let mut s = String::new();
    if sign == 0x4000 {
        s.push('-');
    }
    if weight < 0 {
        s.push('0');
    } else {
        for i in 0..=weight {
            if i == 0 {
                s.push_str(&digit(i).to_string());
            } else {
                s.push_str(&format!("{:04}", digit(i)));
            }
        }
    }
    if dscale > 0 {
        s.push('.');
        let mut frac = String::new();
        let mut i = weight + 1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", digit(i)));
            i += 1;
        }
        frac.truncate(dscale);
        s.push_str(&frac);
    }
    if s == "-0" || (s.starts_with("-0") && s[1..].chars().all(|c| c == '0' || c == '.')) {
        s.remove(0);
    }
    Ok(s)
}

struct PgTable {
    oid: u32,
    schema: String,
    info: TableInfo,
    /// Columns whose values are text (string category or enums): the ones we sample.
    sampleable: Vec<String>,
}

async fn pg_catalog(client: &mut Client, timeout_ms: u64) -> Result<Vec<PgTable>, tokio_postgres::Error> {
    let tx = ro_begin(client, timeout_ms).await?;
    let result = async {
        let schema: String = tx.query_one("SELECT current_schema()", &[]).await?.get::<_, Option<String>>(0).unwrap_or_else(|| "public".into());
        let rows = tx
            .query(
                "SELECT c.oid, c.relname::text FROM pg_catalog.pg_class c \
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname",
                &[&schema],
            )
            .await?;
        let mut tables = Vec::new();
        for r in rows {
            let oid: u32 = r.get(0);
            let name: String = r.get(1);
            let cols = tx
                .query(
                    "SELECT a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, \
                            (t.typcategory = 'S' OR t.typtype = 'e') \
                     FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid \
                     WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                    &[&oid],
                )
                .await?;
            let mut columns = Vec::new();
            let mut sampleable = Vec::new();
            for c in cols {
                let cname: String = c.get(0);
                if c.get::<_, bool>(3) {
                    sampleable.push(cname.clone());
                }
                columns.push(ColumnInfo { name: cname, data_type: c.get::<_, String>(1).to_ascii_lowercase(), nullable: !c.get::<_, bool>(2), samples: Vec::new(), distinct: None, values: Vec::new(), values_complete: false });
            }
            let primary_key: Vec<String> = tx
                .query(
                    "SELECT a.attname::text FROM pg_catalog.pg_index i \
                     CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) \
                     JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum \
                     WHERE i.indrelid = $1 AND i.indisprimary ORDER BY k.ord",
                    &[&oid],
                )
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect();
            let fk_rows = tx
                .query(
                    "SELECT con.conname::text, rn.nspname::text, rc.relname::text, a.attname::text, ra.attname::text \
                     FROM pg_catalog.pg_constraint con \
                     CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(col, refcol, ord) \
                     JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.col \
                     JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid \
                     JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace \
                     JOIN pg_catalog.pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = k.refcol \
                     WHERE con.conrelid = $1 AND con.contype = 'f' ORDER BY con.conname, k.ord",
                    &[&oid],
                )
                .await?;
            let mut foreign_keys: Vec<ForeignKey> = Vec::new();
            let mut last: Option<String> = None;
            for f in fk_rows {
                let conname: String = f.get(0);
                if last.as_deref() != Some(conname.as_str()) {
                    let ref_schema: String = f.get(1);
                    let ref_name: String = f.get(2);
                    let ref_table = if ref_schema == schema { ref_name } else { format!("{ref_schema}.{ref_name}") };
                    foreign_keys.push(ForeignKey { columns: Vec::new(), ref_table, ref_columns: Vec::new() });
                    last = Some(conname);
                }
                let fk = foreign_keys.last_mut().expect("pushed above");
                fk.columns.push(f.get(3));
                fk.ref_columns.push(f.get(4));
            }
            tables.push(PgTable { oid, schema: schema.clone(), info: TableInfo { name, columns, primary_key, foreign_keys, row_count: None }, sampleable });
        }
        Ok(tables)
    }
    .await;
    let rb = tx.rollback().await;
    let tables = result?;
    rb?;
    Ok(tables)
}

impl SqlDatabase for PostgresDb {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn describe(&self) -> String {
        redacted(&self.url)
    }

    fn introspect(&mut self, sample_values: usize) -> Result<DbSchema, SqlError> {
        let timeout = self.limits.timeout_ms;
        let url = self.url.clone();
        let mut tables = self.run(timeout, |c| Box::pin(async move { pg_catalog(c, timeout).await.map_err(|e| pg_error(&e, &url, timeout)) }))?;
        for t in &mut tables {
            let _ = t.oid;
            let qt = format!("{}.{}", quote_ident(&t.schema), quote_ident(&t.info.name));
            let url = self.url.clone();
            let sql = format!("SELECT count(*) FROM {qt}");
            t.info.row_count = match self.run(timeout, |c| Box::pin(async move { ro_rows(c, &sql, &[], timeout).await.map_err(|e| pg_error(&e, &url, timeout)) })) {
                Ok(rows) => rows.first().map(|r| r.get::<_, i64>(0) as u64),
                Err(SqlError::Timeout { .. }) => None,
                Err(e) => return Err(e),
            };
            for col in t.sampleable.clone() {
                let qc = quote_ident(&col);
                let sql = format!(
                    "SELECT {qc}::text, count(*) FROM {qt} WHERE {qc} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT {}",
                    MAX_SAMPLED_DISTINCT + 1
                );
                let url = self.url.clone();
                match self.run(timeout, |c| Box::pin(async move { ro_rows(c, &sql, &[], timeout).await.map_err(|e| pg_error(&e, &url, timeout)) })) {
                    Ok(rows) => {
                        let values: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
                        if let Some((samples, distinct)) = samples_from(values, sample_values)
                            && let Some(ci) = t.info.columns.iter_mut().find(|c| c.name == col)
                        {
                            ci.samples = samples;
                            ci.distinct = Some(distinct);
                        }
                    }
                    Err(SqlError::Timeout { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        for t in &mut tables {
            let qt = format!("{}.{}", quote_ident(&t.schema), quote_ident(&t.info.name));
            for i in 0..t.info.columns.len() {
                let kind = t.info.columns[i].kind();
                if !matches!(kind, ColumnKind::Text | ColumnKind::Integer | ColumnKind::Boolean | ColumnKind::Date) {
                    continue;
                }
                let integer = matches!(kind, ColumnKind::Integer | ColumnKind::Boolean);
                let sql = crate::db::value_index_sql(&qt, &quote_ident(&t.info.columns[i].name), integer, true);
                let url = self.url.clone();
                match self.run(timeout, |c| Box::pin(async move { ro_rows(c, &sql, &[], timeout).await.map_err(|e| pg_error(&e, &url, timeout)) })) {
                    Ok(rows) => {
                        let values: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
                        crate::db::keep_values(&mut t.info.columns[i], values, integer);
                    }
                    Err(SqlError::Timeout { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        let mut tables: Vec<TableInfo> = tables.into_iter().map(|t| t.info).collect();
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(DbSchema { dialect: Some(Dialect::Postgres), tables })
    }

    fn explain(&mut self, sql: &str) -> Result<String, SqlError> {
        let timeout = self.limits.timeout_ms;
        let url = self.url.clone();
        let text = format!("EXPLAIN {sql}");
        let rows = self.run(timeout, |c| Box::pin(async move { ro_rows(c, &text, &[], timeout).await.map_err(|e| pg_error(&e, &url, timeout)) }))?;
        Ok(rows.iter().map(|r| r.try_get::<_, String>(0).unwrap_or_default()).collect::<Vec<_>>().join("\n"))
    }

    fn query(&mut self, sql: &str, limits: ExecLimits) -> Result<QueryResult, SqlError> {
        let start = Instant::now();
        let url = self.url.clone();
        let timeout = limits.timeout_ms;
        let cap = limits.row_cap;
        let sql = sql.to_string();
        let (columns, rows) = self.run(timeout, |c| {
            Box::pin(async move {
                let err = |e: tokio_postgres::Error| pg_error(&e, &url, timeout);
                let tx = ro_begin(c, timeout).await.map_err(err)?;
                let result = async {
                    // Parse (extended protocol): the server refuses more than one statement.
                    let stmt = tx.prepare(&sql).await.map_err(|e| {
                        if e.code().is_some_and(|c| c.code() == "42601") && pg_error_text(&e).contains("multiple commands") {
                            SqlError::Refused(format!("only one statement may run: {}", url.scrub(&pg_error_text(&e))))
                        } else {
                            err(e)
                        }
                    })?;
                    if stmt.columns().is_empty() {
                        return Err(SqlError::Refused("the statement returns no columns; only queries run".into()));
                    }
                    let columns: Vec<String> = stmt.columns().iter().map(|c| c.name().to_string()).collect();
                    let portal = tx.bind(&stmt, &[]).await.map_err(err)?;
                    let max_rows = i32::try_from(cap.saturating_add(1)).unwrap_or(i32::MAX);
                    let rows = tx.query_portal(&portal, max_rows).await.map_err(err)?;
                    Ok((columns, rows))
                }
                .await;
                let rb = tx.rollback().await;
                let out = result?;
                rb.map_err(err)?;
                Ok(out)
            })
        })?;
        let truncated = rows.len() > cap;
        let mut out = Vec::with_capacity(rows.len().min(cap));
        for row in rows.iter().take(cap) {
            let mut values = Vec::with_capacity(columns.len());
            for i in 0..columns.len() {
                let v = row.try_get::<_, PgValue>(i).map_err(|e| SqlError::Query { reason: self.url.scrub(&error_chain(&e)), transient: false })?;
                values.push(v.0);
            }
            out.push(values);
        }
        Ok(QueryResult { columns, rows: out, truncated, elapsed_ms: ms(start) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(ndigits: u16, weight: i16, sign: u16, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut v = Vec::new();
        for x in [ndigits, weight as u16, sign, dscale].iter().chain(digits) {
            v.extend_from_slice(&x.to_be_bytes());
        }
        v
    }

    #[test]
    fn decodes_numeric_binary_format() {
        // 1234.50 = digits [1234, 5000], weight 0, dscale 2
        assert_eq!(decode_numeric(&numeric(2, 0, 0, 2, &[1234, 5000])).unwrap(), "1234.50");
        // 250000.00 = [25, 0] weight 1
        assert_eq!(decode_numeric(&numeric(1, 1, 0, 2, &[25])).unwrap(), "250000.00");
        // -0.0042 = [42] weight -1, dscale 4
        assert_eq!(decode_numeric(&numeric(1, -1, 0x4000, 4, &[42])).unwrap(), "-0.0042");
        // 0.00001 = [1000] weight -2, dscale 5
        assert_eq!(decode_numeric(&numeric(1, -2, 0, 5, &[1000])).unwrap(), "0.00001");
        // 0 with scale 2
        assert_eq!(decode_numeric(&numeric(0, 0, 0, 2, &[])).unwrap(), "0.00");
        assert_eq!(decode_numeric(&numeric(0, 0, 0, 0, &[])).unwrap(), "0");
        // 12345678 = [1234, 5678] weight 1
        assert_eq!(decode_numeric(&numeric(2, 1, 0, 0, &[1234, 5678])).unwrap(), "12345678");
        assert_eq!(decode_numeric(&numeric(0, 0, 0xC000, 0, &[])).unwrap(), "NaN");
        assert!(decode_numeric(&[0, 1]).is_err());
        assert_eq!(numeric_value("1234.50"), serde_json::json!(1234.5));
        assert_eq!(numeric_value("42"), serde_json::json!(42));
        assert_eq!(numeric_value("NaN"), serde_json::json!("NaN"));
    }

    #[test]
    fn decodes_postgres_values_by_type() {
        assert_eq!(pg_value(&Type::INT4, &7i32.to_be_bytes()), serde_json::json!(7));
        assert_eq!(pg_value(&Type::INT8, &(-3i64).to_be_bytes()), serde_json::json!(-3));
        assert_eq!(pg_value(&Type::TEXT, b"Open"), serde_json::json!("Open"));
        assert_eq!(pg_value(&Type::BOOL, &[1]), serde_json::json!(true));
        // 2024-01-02 is 8767 days after 2000-01-01
        assert_eq!(pg_value(&Type::DATE, &8767i32.to_be_bytes()), serde_json::json!("2024-01-02"));
        assert_eq!(pg_value(&Type::FLOAT8, &1.5f64.to_be_bytes()), serde_json::json!(1.5));
        assert_eq!(pg_value(&Type::INTERVAL, &[0; 16]), serde_json::json!("<interval>"));
        assert_eq!(pg_value(&Type::DATE, &[1]), serde_json::json!("<date>"));
    }
}
