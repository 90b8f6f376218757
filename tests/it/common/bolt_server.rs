//! A scripted Bolt server on loopback: a test double of the Neo4j wire protocol, not a database.
//!
//! It speaks what the `neo4rs` driver sends: the handshake (magic `0x6060B017`, four version
//! proposals; it accepts Bolt 4.4, which neo4rs 0.9 proposes first), chunked message framing,
//! PackStream values, and the request messages HELLO, GOODBYE, RESET, RUN, BEGIN, COMMIT,
//! ROLLBACK, DISCARD and PULL, answered with SUCCESS, RECORD, IGNORED and FAILURE. (LOGON is
//! understood as well, but neo4rs 0.9 proposes only Bolt 4.x and authenticates in HELLO.) Every request is recorded (message name, query text, parameters and extra
//! metadata). A RUN is answered from a script keyed by its query text: fields and records, or a
//! FAILURE with a Neo4j error code; an unscripted query succeeds with no fields and no records.
//! After a FAILURE, requests are IGNORED until RESET, as on a real server.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

// ---------------------------------------------------------------------------------------------
// PackStream values

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Bytes(Vec<u8>),
    String(String),
    List(Vec<Value>),
    /// Entries in wire order.
    Map(Vec<(String, Value)>),
    Struct(u8, Vec<Value>),
}

impl Value {
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    pub fn as_list(&self) -> &[Value] {
        match self {
            Value::List(l) => l,
            _ => &[],
        }
    }
    /// The same value as JSON (structs as `{"$struct": tag, "fields": [...]}`), for assertions.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => json!(b),
            Value::Int(i) => json!(i),
            Value::Float(f) => json!(f),
            Value::Bytes(b) => json!(b),
            Value::String(s) => json!(s),
            Value::List(l) => serde_json::Value::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m) => serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
            Value::Struct(tag, fields) => json!({"$struct": tag, "fields": fields.iter().map(Value::to_json).collect::<Vec<_>>()}),
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_string())
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

pub fn map(entries: &[(&str, Value)]) -> Value {
    Value::Map(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}
pub fn list(items: Vec<Value>) -> Value {
    Value::List(items)
}
/// Bolt 4.4 Node: (id, labels, properties).
pub fn node(id: i64, labels: &[&str], props: &[(&str, Value)]) -> Value {
    Value::Struct(0x4E, vec![Value::Int(id), list(labels.iter().map(|l| Value::from(*l)).collect()), map(props)])
}
/// Bolt 4.4 Relationship: (id, start node id, end node id, type, properties).
pub fn rel(id: i64, start: i64, end: i64, rel_type: &str, props: &[(&str, Value)]) -> Value {
    Value::Struct(0x52, vec![Value::Int(id), Value::Int(start), Value::Int(end), rel_type.into(), map(props)])
}
/// UnboundRelationship: (id, type, properties).
pub fn urel(id: i64, rel_type: &str, props: &[(&str, Value)]) -> Value {
    Value::Struct(0x72, vec![Value::Int(id), rel_type.into(), map(props)])
}
/// Path: (unique nodes, unique unbound relationships, indices).
pub fn path(nodes: Vec<Value>, rels: Vec<Value>, indices: &[i64]) -> Value {
    Value::Struct(0x50, vec![list(nodes), list(rels), list(indices.iter().map(|i| Value::Int(*i)).collect())])
}
/// Date: days since the epoch.
pub fn date(days: i64) -> Value {
    Value::Struct(0x44, vec![Value::Int(days)])
}
/// Duration: (months, days, seconds, nanoseconds).
pub fn duration(months: i64, days: i64, seconds: i64, nanos: i64) -> Value {
    Value::Struct(0x45, vec![Value::Int(months), Value::Int(days), Value::Int(seconds), Value::Int(nanos)])
}

pub fn encode(v: &Value, out: &mut Vec<u8>) {
    fn size(out: &mut Vec<u8>, len: usize, tiny: u8, m8: u8) {
        if len < 16 && tiny != 0 {
            out.push(tiny | len as u8);
        } else if len <= u8::MAX as usize {
            out.extend([m8, len as u8]);
        } else if len <= u16::MAX as usize {
            out.push(m8 + 1);
            out.extend((len as u16).to_be_bytes());
        } else {
            out.push(m8 + 2);
            out.extend((len as u32).to_be_bytes());
        }
    }
    match v {
        Value::Null => out.push(0xC0),
        Value::Bool(b) => out.push(if *b { 0xC3 } else { 0xC2 }),
        Value::Int(i) => match *i {
            -16..=127 => out.push(*i as i8 as u8),
            -128..=-17 => out.extend([0xC8, *i as i8 as u8]),
            i if i16::try_from(i).is_ok() => {
                out.push(0xC9);
                out.extend((i as i16).to_be_bytes());
            }
            i if i32::try_from(i).is_ok() => {
                out.push(0xCA);
                out.extend((i as i32).to_be_bytes());
            }
            i => {
                out.push(0xCB);
                out.extend(i.to_be_bytes());
            }
        },
        Value::Float(f) => {
            out.push(0xC1);
            out.extend(f.to_be_bytes());
        }
        Value::Bytes(b) => {
            size(out, b.len(), 0, 0xCC);
            out.extend(b);
        }
        Value::String(s) => {
            size(out, s.len(), 0x80, 0xD0);
            out.extend(s.as_bytes());
        }
        Value::List(l) => {
            size(out, l.len(), 0x90, 0xD4);
            l.iter().for_each(|x| encode(x, out));
        }
        Value::Map(m) => {
            size(out, m.len(), 0xA0, 0xD8);
            for (k, x) in m {
                encode(&Value::String(k.clone()), out);
                encode(x, out);
            }
        }
        Value::Struct(tag, fields) => {
            assert!(fields.len() < 16, "struct too large");
            out.extend([0xB0 | fields.len() as u8, *tag]);
            fields.iter().for_each(|x| encode(x, out));
        }
    }
}

pub fn decode(input: &mut &[u8]) -> io::Result<Value> {
    fn take<'a>(input: &mut &'a [u8], n: usize) -> io::Result<&'a [u8]> {
        if input.len() < n {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "truncated PackStream value"));
        }
        let (head, rest) = input.split_at(n);
        *input = rest;
        Ok(head)
    }
    fn len(input: &mut &[u8], bytes: usize) -> io::Result<usize> {
        Ok(take(input, bytes)?.iter().fold(0usize, |acc, b| (acc << 8) | *b as usize))
    }
    fn items(input: &mut &[u8], n: usize) -> io::Result<Vec<Value>> {
        (0..n).map(|_| decode(input)).collect()
    }
    fn entries(input: &mut &[u8], n: usize) -> io::Result<Value> {
        let mut m = Vec::with_capacity(n);
        for _ in 0..n {
            let Value::String(k) = decode(input)? else {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "map key is not a string"));
            };
            m.push((k, decode(input)?));
        }
        Ok(Value::Map(m))
    }
    fn string(input: &mut &[u8], n: usize) -> io::Result<Value> {
        String::from_utf8(take(input, n)?.to_vec()).map(Value::String).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
    let marker = take(input, 1)?[0];
    Ok(match marker {
        0x00..=0x7F => Value::Int(marker as i64),
        0xF0..=0xFF => Value::Int(marker as i8 as i64),
        0xC0 => Value::Null,
        0xC1 => Value::Float(f64::from_be_bytes(take(input, 8)?.try_into().unwrap())),
        0xC2 => Value::Bool(false),
        0xC3 => Value::Bool(true),
        0xC8 => Value::Int(take(input, 1)?[0] as i8 as i64),
        0xC9 => Value::Int(i16::from_be_bytes(take(input, 2)?.try_into().unwrap()) as i64),
        0xCA => Value::Int(i32::from_be_bytes(take(input, 4)?.try_into().unwrap()) as i64),
        0xCB => Value::Int(i64::from_be_bytes(take(input, 8)?.try_into().unwrap())),
        0xCC..=0xCE => {
            let n = len(input, 1 << (marker - 0xCC))?;
            Value::Bytes(take(input, n)?.to_vec())
        }
        0x80..=0x8F => string(input, (marker & 0x0F) as usize)?,
        0xD0..=0xD2 => {
            let n = len(input, 1 << (marker - 0xD0))?;
            string(input, n)?
        }
        0x90..=0x9F => Value::List(items(input, (marker & 0x0F) as usize)?),
        0xD4..=0xD6 => {
            let n = len(input, 1 << (marker - 0xD4))?;
            Value::List(items(input, n)?)
        }
        0xA0..=0xAF => entries(input, (marker & 0x0F) as usize)?,
        0xD8..=0xDA => {
            let n = len(input, 1 << (marker - 0xD8))?;
            entries(input, n)?
        }
        0xB0..=0xBF => {
            let tag = take(input, 1)?[0];
            Value::Struct(tag, items(input, (marker & 0x0F) as usize)?)
        }
        other => return Err(io::Error::new(io::ErrorKind::InvalidData, format!("unknown PackStream marker {other:#04x}"))),
    })
}

// ---------------------------------------------------------------------------------------------
// Messages and framing

pub const HELLO: u8 = 0x01;
pub const GOODBYE: u8 = 0x02;
pub const LOGON: u8 = 0x6A;
pub const RESET: u8 = 0x0F;
pub const RUN: u8 = 0x10;
pub const BEGIN: u8 = 0x11;
pub const COMMIT: u8 = 0x12;
pub const ROLLBACK: u8 = 0x13;
pub const DISCARD: u8 = 0x2F;
pub const PULL: u8 = 0x3F;
pub const SUCCESS: u8 = 0x70;
pub const RECORD: u8 = 0x71;
pub const IGNORED: u8 = 0x7E;
pub const FAILURE: u8 = 0x7F;

fn message_name(tag: u8) -> &'static str {
    match tag {
        HELLO => "HELLO",
        GOODBYE => "GOODBYE",
        LOGON => "LOGON",
        RESET => "RESET",
        RUN => "RUN",
        BEGIN => "BEGIN",
        COMMIT => "COMMIT",
        ROLLBACK => "ROLLBACK",
        DISCARD => "DISCARD",
        PULL => "PULL",
        _ => "UNKNOWN",
    }
}

/// One message: chunks of at most 65,535 bytes, each after its u16 size, then a 0x0000 marker.
fn read_message(stream: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut message = Vec::new();
    loop {
        let mut size = [0u8; 2];
        stream.read_exact(&mut size)?;
        let size = u16::from_be_bytes(size) as usize;
        if size == 0 {
            if message.is_empty() {
                continue; // a NOOP chunk (keep-alive)
            }
            return Ok(message);
        }
        let start = message.len();
        message.resize(start + size, 0);
        stream.read_exact(&mut message[start..])?;
    }
}

fn write_message(stream: &mut impl Write, tag: u8, fields: &[Value]) -> io::Result<()> {
    let mut body = Vec::new();
    encode(&Value::Struct(tag, fields.to_vec()), &mut body);
    let mut framed = Vec::with_capacity(body.len() + 8);
    for chunk in body.chunks(u16::MAX as usize) {
        framed.extend((chunk.len() as u16).to_be_bytes());
        framed.extend(chunk);
    }
    framed.extend([0, 0]);
    stream.write_all(&framed)
}

// ---------------------------------------------------------------------------------------------
// The server

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    /// HELLO, RUN, PULL, BEGIN, …
    pub message: &'static str,
    /// RUN: the query text.
    pub query: Option<String>,
    /// RUN: the parameters map.
    pub params: Value,
    /// RUN and BEGIN: the extra metadata; HELLO/LOGON: the auth map; PULL/DISCARD: `{n, qid}`.
    pub extra: Value,
}

/// How a RUN of a given query text is answered.
#[derive(Debug, Clone)]
pub enum Reply {
    Records { fields: Vec<String>, records: Vec<Vec<Value>> },
    Failure { code: String, message: String },
}

impl Reply {
    pub fn records(fields: &[&str], records: Vec<Vec<Value>>) -> Reply {
        Reply::Records { fields: fields.iter().map(|f| f.to_string()).collect(), records }
    }
    pub fn failure(code: &str, message: &str) -> Reply {
        Reply::Failure { code: code.into(), message: message.into() }
    }
}

#[derive(Default)]
struct Shared {
    requests: Vec<Request>,
    script: HashMap<String, Reply>,
    /// Accepted (principal, credentials); `None` accepts anything.
    credentials: Option<(String, String)>,
    /// Accept connections but never answer (for timeout tests).
    silent: bool,
}

pub struct BoltServer {
    pub addr: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl BoltServer {
    pub fn start() -> BoltServer {
        Self::start_with(Shared::default())
    }

    /// A server that answers HELLO with FAILURE Neo.ClientError.Security.Unauthorized unless the
    /// credentials match.
    pub fn with_credentials(user: &str, password: &str) -> BoltServer {
        Self::start_with(Shared { credentials: Some((user.into(), password.into())), ..Shared::default() })
    }

    /// A server that accepts TCP connections and then says nothing.
    pub fn silent() -> BoltServer {
        Self::start_with(Shared { silent: true, ..Shared::default() })
    }

    fn start_with(shared: Shared) -> BoltServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(shared));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (shared.clone(), stop.clone());
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = s.clone();
                std::thread::spawn(move || {
                    let _ = serve(conn, &s);
                });
            }
        });
        BoltServer { addr, shared, stop, accept: Some(accept) }
    }

    pub fn uri(&self) -> String {
        format!("bolt://{}", self.addr)
    }

    /// Answer RUNs of exactly this query text with `reply`.
    pub fn on(&self, query: &str, reply: Reply) {
        self.shared.lock().unwrap().script.insert(query.to_string(), reply);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.shared.lock().unwrap().requests.clone()
    }

    /// The RUN requests, in order.
    pub fn runs(&self) -> Vec<Request> {
        self.requests().into_iter().filter(|r| r.message == "RUN").collect()
    }

    pub fn clear(&self) {
        self.shared.lock().unwrap().requests.clear();
    }
}

impl Drop for BoltServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr); // wake the accept loop
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn serve(mut conn: TcpStream, shared: &Mutex<Shared>) -> io::Result<()> {
    conn.set_nodelay(true)?;
    if shared.lock().unwrap().silent {
        // Hold the connection open without a word until the client gives up.
        let mut sink = [0u8; 64];
        while conn.read(&mut sink)? > 0 {}
        return Ok(());
    }
    // Handshake: magic, then four proposals [0, range, minor, major]; answer 4.4 or refuse.
    let mut hello = [0u8; 20];
    conn.read_exact(&mut hello)?;
    if hello[..4] != [0x60, 0x60, 0xB0, 0x17] {
        return Ok(());
    }
    let offers_4_4 = hello[4..].chunks(4).any(|p| {
        let (range, minor, major) = (p[1], p[2], p[3]);
        major == 4 && minor >= 4 && minor.saturating_sub(range) <= 4
    });
    if !offers_4_4 {
        conn.write_all(&[0, 0, 0, 0])?;
        return Ok(());
    }
    conn.write_all(&[0, 0, 4, 4])?;

    let mut failed = false;
    let mut pending: VecDeque<Vec<Value>> = VecDeque::new();
    loop {
        let bytes = match read_message(&mut conn) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        let Value::Struct(tag, fields) = decode(&mut bytes.as_slice())? else {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "message is not a struct"));
        };
        let field = |i: usize| fields.get(i).cloned().unwrap_or(Value::Null);
        let request = match tag {
            RUN => Request { message: "RUN", query: field(0).as_str().map(str::to_string), params: field(1), extra: field(2) },
            _ => Request { message: message_name(tag), query: None, params: Value::Null, extra: field(0) },
        };
        shared.lock().unwrap().requests.push(request.clone());

        let ok = |conn: &mut TcpStream, meta: Value| write_message(conn, SUCCESS, &[meta]);
        match tag {
            GOODBYE => return Ok(()),
            RESET => {
                failed = false;
                pending.clear();
                ok(&mut conn, map(&[]))?;
            }
            _ if failed => write_message(&mut conn, IGNORED, &[])?,
            HELLO | LOGON => {
                let expected = shared.lock().unwrap().credentials.clone();
                let auth = &request.extra;
                let given = (auth.get("principal").and_then(Value::as_str), auth.get("credentials").and_then(Value::as_str));
                let rejected = expected.is_some_and(|(user, password)| given != (Some(user.as_str()), Some(password.as_str())));
                if rejected {
                    let failure = map(&[
                        ("code", "Neo.ClientError.Security.Unauthorized".into()),
                        ("message", "The client is unauthorized due to authentication failure.".into()),
                    ]);
                    write_message(&mut conn, FAILURE, &[failure])?;
                    return Ok(()); // the server closes a connection whose authentication failed
                }
                ok(&mut conn, map(&[("server", "Neo4j/4.4.0-bolt-double".into()), ("connection_id", "bolt-double-1".into())]))?;
            }
            BEGIN | ROLLBACK => ok(&mut conn, map(&[]))?,
            COMMIT => ok(&mut conn, map(&[("bookmark", "FB:bolt-double".into())]))?,
            RUN => {
                let reply = shared.lock().unwrap().script.get(request.query.as_deref().unwrap_or("")).cloned();
                match reply.unwrap_or_else(|| Reply::records(&[], vec![])) {
                    Reply::Records { fields, records } => {
                        pending = records.into();
                        let fields = list(fields.iter().map(|f| Value::from(f.as_str())).collect());
                        ok(&mut conn, map(&[("fields", fields), ("t_first", 0.into())]))?;
                    }
                    Reply::Failure { code, message } => {
                        failed = true;
                        write_message(&mut conn, FAILURE, &[map(&[("code", code.as_str().into()), ("message", message.as_str().into())])])?;
                    }
                }
            }
            PULL => {
                let n = request.extra.get("n").and_then(Value::as_int).unwrap_or(-1);
                let take = if n < 0 { pending.len() } else { (n as usize).min(pending.len()) };
                for record in pending.drain(..take) {
                    write_message(&mut conn, RECORD, &[list(record)])?;
                }
                if pending.is_empty() {
                    ok(&mut conn, map(&[("type", "r".into()), ("t_last", 0.into())]))?;
                } else {
                    ok(&mut conn, map(&[("has_more", true.into())]))?;
                }
            }
            DISCARD => {
                pending.clear();
                ok(&mut conn, map(&[("type", "r".into()), ("t_last", 0.into())]))?;
            }
            _ => {
                failed = true;
                let failure = map(&[("code", "Neo.ClientError.Request.Invalid".into()), ("message", format!("unsupported message {tag:#04x}").as_str().into())]);
                write_message(&mut conn, FAILURE, &[failure])?;
            }
        }
    }
}

/// Tests share the same assertions on recorded parameters: this picks a RUN's parameter as JSON.
pub fn param(request: &Request, name: &str) -> serde_json::Value {
    request.params.get(name).map(Value::to_json).unwrap_or(serde_json::Value::Null)
}

/// All keys of a metadata map, for assertions.
pub fn keys(v: &Value) -> BTreeMap<String, Value> {
    match v {
        Value::Map(m) => m.iter().cloned().collect(),
        _ => BTreeMap::new(),
    }
}
