//! A small HTTP/1.1 server on loopback for test doubles of HTTP services (the OpenAI-compatible
//! LLM server; an Elasticsearch one next), on `std::net` and one thread per connection: no
//! async runtime and no HTTP framework.
//!
//! It parses the request line, the headers and the body (`Content-Length`, or
//! `Transfer-Encoding: chunked`, decoded; `Expect: 100-continue` is answered), hands a
//! [`Request`] to the handler closure and writes its [`Response`] with a status line and
//! `Content-Length`. Connections are persistent (HTTP/1.1 keep-alive) unless the client sends
//! `Connection: close` or speaks HTTP/1.0; then the response says `Connection: close` and the
//! server closes. Malformed requests get 400 (431 for oversized headers, 413 for oversized
//! bodies, 501 for other transfer codings, 505 for other HTTP versions) and a closed
//! connection.
//!
//! Dropping the [`HttpServer`] stops it: the accept loop ends, idle keep-alive connections are
//! shut down, handlers waiting in [`Stop::sleep`] wake at once, and their responses are dropped
//! unsent. All its threads have ended when `drop` returns.

#![allow(dead_code)]

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Request line plus headers, at most.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Request body (either framing), at most.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// One parsed request.
#[derive(Clone)]
pub struct Request {
    pub method: String,
    /// The request target as sent: `/path?query` (or an absolute URL; see [`Request::path_and_query`]).
    pub target: String,
    /// `HTTP/1.1` or `HTTP/1.0`.
    pub version: String,
    /// In arrival order; names lower-cased, values without surrounding whitespace.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked when it came chunked.
    pub body: Vec<u8>,
    /// The client's address (one per connection).
    pub peer: SocketAddr,
}

impl Request {
    /// The value of header `name` (any case); the last one when repeated.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every value of header `name` (any case), in order.
    pub fn header_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// `/path?query`, also when the target is in absolute form (`http://host/path?query`).
    pub fn path_and_query(&self) -> &str {
        let t = self.target.as_str();
        let Some(scheme_end) = t.find("://") else { return t };
        let after_authority = &t[scheme_end + 3..];
        after_authority.find(['/', '?']).map_or("/", |i| &after_authority[i..])
    }

    /// The path, without the query.
    pub fn path(&self) -> &str {
        let pq = self.path_and_query();
        pq.split_once('?').map_or(pq, |(p, _)| p)
    }

    /// The query string (after `?`), if any.
    pub fn query(&self) -> Option<&str> {
        self.path_and_query().split_once('?').map(|(_, q)| q)
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Whether the client wants the connection kept open after this exchange.
    fn keep_alive(&self) -> bool {
        let tokens = || self.header_values("connection").flat_map(|v| v.split(',')).map(str::trim);
        if self.version == "HTTP/1.0" {
            tokens().any(|t| t.eq_ignore_ascii_case("keep-alive"))
        } else {
            !tokens().any(|t| t.eq_ignore_ascii_case("close"))
        }
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("target", &self.target)
            .field("version", &self.version)
            .field("headers", &self.headers)
            .field("body", &self.body_text())
            .field("peer", &self.peer)
            .finish()
    }
}

/// What a handler answers. The server owns the framing: it writes `Content-Length` and
/// `Connection` itself and drops any such headers (and `Transfer-Encoding`) set here.
#[derive(Debug, Clone)]
pub struct Response {
    /// 100–999; anything else is sent as 500.
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// `status` with this body and `Content-Type`.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response { status, headers: vec![("Content-Type".into(), content_type.into())], body: body.into() }
    }

    /// `status` with a JSON body.
    pub fn json(status: u16, body: &serde_json::Value) -> Response {
        Response::new(status, "application/json", body.to_string())
    }

    /// `status` with a plain-text body.
    pub fn text(status: u16, body: impl Into<String>) -> Response {
        Response::new(status, "text/plain; charset=utf-8", body.into())
    }

    /// `status` without a body.
    pub fn empty(status: u16) -> Response {
        Response { status, headers: Vec::new(), body: Vec::new() }
    }

    /// Adds a header. Panics on a name or value that cannot go on the wire (CR, LF, other
    /// control characters), which would otherwise corrupt the response.
    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        assert!(is_token(name), "invalid header name {name:?}");
        assert!(is_header_value(value), "invalid value for header {name}: {value:?}");
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Whether `value` can be sent as a header value: visible ASCII, spaces, tabs and bytes ≥ 0x80
/// (the rule `http::HeaderValue` applies).
pub fn is_header_value(value: &str) -> bool {
    value.bytes().all(|b| (b >= 0x20 && b != 0x7f) || b == b'\t')
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The server's stop signal, given to handlers so that waits end when the server is dropped.
#[derive(Clone, Default)]
pub struct Stop(Arc<(Mutex<bool>, Condvar)>);

impl Stop {
    pub fn is_stopped(&self) -> bool {
        *self.0.0.lock().unwrap()
    }

    /// Sleeps for `d`, or until the server stops. True when the whole time passed.
    pub fn sleep(&self, d: Duration) -> bool {
        let (lock, cvar) = &*self.0;
        let deadline = Instant::now() + d;
        let mut stopped = lock.lock().unwrap();
        while !*stopped {
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            stopped = cvar.wait_timeout(stopped, deadline - now).unwrap().0;
        }
        false
    }

    fn trigger(&self) {
        *self.0.0.lock().unwrap() = true;
        self.0.1.notify_all();
    }
}

type Handler = dyn Fn(&Request, &Stop) -> Response + Send + Sync;

/// Open connections: a handle on each socket (to shut it down) and its thread.
type Connections = Arc<Mutex<Vec<(TcpStream, JoinHandle<()>)>>>;

/// A running server; stops when dropped.
pub struct HttpServer {
    addr: SocketAddr,
    stop: Stop,
    connections: Connections,
    acceptor: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Serves `handler` on `127.0.0.1:<free port>`; accepting when this returns. `name` names
    /// the threads.
    pub fn start(name: &str, handler: impl Fn(&Request, &Stop) -> Response + Send + Sync + 'static) -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let stop = Stop::default();
        let connections: Connections = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let (st, conns, thread_name) = (stop.clone(), connections.clone(), name.to_string());
        let acceptor = std::thread::Builder::new()
            .name(format!("{name}-accept"))
            .spawn(move || accept_loop(listener, &thread_name, handler, st, conns))
            .expect("spawn accept thread");
        HttpServer { addr, stop, connections, acceptor: Some(acceptor) }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.trigger();
        // Wake the accept loop, blocked in accept(); it sees the stop flag and ends.
        let woken = TcpStream::connect_timeout(&self.addr, Duration::from_secs(2)).is_ok();
        if let Some(acceptor) = self.acceptor.take()
            && woken
        {
            let _ = acceptor.join();
        }
        // No new connections now (or, if the wake-up failed, none we wait for). Shutting the
        // sockets down ends reads on idle keep-alive connections; sleeping handlers were woken
        // by the stop signal and write nothing.
        let open = std::mem::take(&mut *self.connections.lock().unwrap());
        for (socket, _) in &open {
            let _ = socket.shutdown(Shutdown::Both);
        }
        for (_, thread) in open {
            let _ = thread.join();
        }
    }
}

fn accept_loop(listener: TcpListener, name: &str, handler: Arc<Handler>, stop: Stop, connections: Connections) {
    for conn in listener.incoming() {
        if stop.is_stopped() {
            break;
        }
        let Ok(stream) = conn else {
            // Out of file descriptors and the like: try again shortly.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let Ok(handle) = stream.try_clone() else { continue };
        let (handler, st) = (handler.clone(), stop.clone());
        let spawned = std::thread::Builder::new().name(format!("{name}-conn")).spawn(move || {
            let _ = serve_connection(&stream, &*handler, &st);
            // Close now: the registry's handle on the socket would otherwise keep it open.
            let _ = stream.shutdown(Shutdown::Both);
        });
        let Ok(thread) = spawned else { continue };
        let mut open = connections.lock().unwrap();
        // Forget finished connections (their sockets are closed; the clone here is just a handle).
        open.retain(|(_, t)| !t.is_finished());
        open.push((handle, thread));
    }
}

/// A request the server refuses: answered with this status, then the connection is closed.
struct Refusal {
    status: u16,
    message: String,
}

fn refuse<T>(status: u16, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal { status, message: message.into() })
}

impl From<io::Error> for Refusal {
    fn from(e: io::Error) -> Refusal {
        // Only reported if the socket still works; usually it does not.
        Refusal { status: 400, message: format!("reading the request: {e}") }
    }
}

fn serve_connection(stream: &TcpStream, handler: &Handler, stop: &Stop) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let peer = stream.peer_addr()?;
    let mut reader = BufReader::new(stream);
    let mut writer = stream;
    loop {
        let request = match read_request(&mut reader, &mut writer, peer) {
            Ok(Some(request)) => request,
            Ok(None) => return Ok(()), // the client closed the connection between requests
            Err(refusal) => {
                if stop.is_stopped() {
                    return Ok(());
                }
                let response = Response::text(refusal.status, refusal.message);
                write_response(&mut writer, "GET", response, false)?;
                linger(stream);
                return Ok(());
            }
        };
        let keep_alive = request.keep_alive();
        let response = handler(&request, stop);
        if stop.is_stopped() {
            // Dropped while answering (say, while a handler waited): send nothing.
            return Ok(());
        }
        write_response(&mut writer, &request.method, response, keep_alive)?;
        if !keep_alive {
            return Ok(());
        }
    }
}

/// Closes after a refusal without losing the response: unread request bytes left in the socket
/// would make the close a reset, which can discard the response before the client reads it.
fn linger(stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 8192];
    let mut left = MAX_HEAD_BYTES + MAX_BODY_BYTES;
    while let Ok(n @ 1..) = (&*stream).read(&mut sink) {
        left = left.saturating_sub(n);
        if left == 0 {
            break;
        }
    }
}

/// Reads one line ending in LF, counting it against `budget`; `None` at end of input.
fn read_line(reader: &mut impl BufRead, budget: &mut usize, too_long: u16) -> Result<Option<String>, Refusal> {
    let mut line = Vec::new();
    let n = reader.by_ref().take(*budget as u64 + 1).read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if n > *budget {
        return refuse(too_long, "request head too large");
    }
    *budget -= n;
    if line.last() != Some(&b'\n') {
        return refuse(400, "connection closed in the middle of a line");
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    match String::from_utf8(line) {
        Ok(s) => Ok(Some(s)),
        Err(e) => Ok(Some(String::from_utf8_lossy(e.as_bytes()).into_owned())),
    }
}

/// Reads the next request; `Ok(None)` when the connection ends cleanly before one starts.
fn read_request(reader: &mut impl BufRead, writer: &mut impl Write, peer: SocketAddr) -> Result<Option<Request>, Refusal> {
    let mut budget = MAX_HEAD_BYTES;
    // A server ought to ignore empty lines before the request line (RFC 9112 §2.2).
    let request_line = loop {
        match read_line(reader, &mut budget, 431)? {
            None => return Ok(None),
            Some(line) if line.is_empty() => continue,
            Some(line) => break line,
        }
    };
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return refuse(400, format!("malformed request line {request_line:?}"));
    };
    if !is_token(method) || target.is_empty() || target.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return refuse(400, format!("malformed request line {request_line:?}"));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return if version.starts_with("HTTP/") {
            refuse(505, format!("unsupported version {version}"))
        } else {
            refuse(400, format!("malformed request line {request_line:?}"))
        };
    }

    let mut headers = Vec::new();
    loop {
        let Some(line) = read_line(reader, &mut budget, 431)? else {
            return refuse(400, "connection closed inside the headers");
        };
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            return refuse(400, "obsolete line folding in headers");
        }
        let Some((name, value)) = line.split_once(':') else {
            return refuse(400, format!("malformed header line {line:?}"));
        };
        if !is_token(name) {
            return refuse(400, format!("malformed header name {name:?}"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim_matches([' ', '\t']).to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        target: target.to_string(),
        version: version.to_string(),
        headers,
        body: Vec::new(),
        peer,
    };

    // Body framing (RFC 9112 §6.3): Transfer-Encoding, else Content-Length, else none.
    let codings: Vec<String> = request
        .header_values("transfer-encoding")
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    let lengths: Vec<&str> = request.header_values("content-length").flat_map(|v| v.split(',')).map(str::trim).collect();
    enum Framing {
        None,
        Length(usize),
        Chunked,
    }
    let framing = if !codings.is_empty() {
        if !lengths.is_empty() {
            return refuse(400, "both Transfer-Encoding and Content-Length");
        }
        if codings != ["chunked"] {
            return refuse(501, format!("unsupported transfer coding {:?}", codings.join(", ")));
        }
        Framing::Chunked
    } else if let Some(first) = lengths.first() {
        if lengths.iter().any(|l| l != first) || first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
            return refuse(400, format!("invalid Content-Length {:?}", lengths.join(", ")));
        }
        match first.parse::<usize>() {
            Ok(n) if n <= MAX_BODY_BYTES => Framing::Length(n),
            _ => return refuse(413, format!("body of {first} bytes is too large")),
        }
    } else {
        Framing::None
    };

    let expects_body = !matches!(framing, Framing::None | Framing::Length(0));
    if expects_body
        && request.version == "HTTP/1.1"
        && request.header("expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        writer.flush()?;
    }

    match framing {
        Framing::None => {}
        Framing::Length(n) => {
            request.body = vec![0; n];
            reader.read_exact(&mut request.body)?;
        }
        Framing::Chunked => request.body = read_chunked(reader)?,
    }
    Ok(Some(request))
}

/// A chunked body: `size[;ext] CRLF data CRLF` … `0 CRLF` trailers `CRLF`; trailers are ignored.
fn read_chunked(reader: &mut impl BufRead) -> Result<Vec<u8>, Refusal> {
    let mut body = Vec::new();
    let mut budget = MAX_HEAD_BYTES; // for size lines and trailers
    loop {
        let Some(line) = read_line(reader, &mut budget, 400)? else {
            return refuse(400, "connection closed inside a chunked body");
        };
        let size = line.split(';').next().unwrap_or("").trim_matches([' ', '\t']);
        let size = match usize::from_str_radix(size, 16) {
            Ok(n) if !size.is_empty() && size.bytes().all(|b| b.is_ascii_hexdigit()) => n,
            _ => return refuse(400, format!("invalid chunk size line {line:?}")),
        };
        if size == 0 {
            break;
        }
        if size > MAX_BODY_BYTES - body.len() {
            return refuse(413, "chunked body too large");
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
        if &crlf != b"\r\n" {
            return refuse(400, "chunk data not followed by CRLF");
        }
    }
    loop {
        match read_line(reader, &mut budget, 400)? {
            None => return refuse(400, "connection closed inside the chunked trailers"),
            Some(line) if line.is_empty() => return Ok(body),
            Some(_) => {}
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

fn write_response(writer: &mut impl Write, method: &str, response: Response, keep_alive: bool) -> io::Result<()> {
    let status = if (100..=999).contains(&response.status) { response.status } else { 500 };
    // 1xx, 204 and 304 responses have no body (RFC 9110 §6.4.1); HEAD responses describe one
    // without sending it.
    let bodiless = status < 200 || status == 204 || status == 304;
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status)).into_bytes();
    for (name, value) in &response.headers {
        if ["content-length", "transfer-encoding", "connection"].iter().any(|h| name.eq_ignore_ascii_case(h)) {
            continue;
        }
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    if !bodiless {
        out.extend_from_slice(format!("Content-Length: {}\r\n", response.body.len()).as_bytes());
    }
    if !keep_alive {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    if !bodiless && method != "HEAD" {
        out.extend_from_slice(&response.body);
    }
    writer.write_all(&out)?;
    writer.flush()
}

mod tests {
    use super::*;

    /// Answers with what it parsed, as JSON.
    fn echo(req: &Request, _: &Stop) -> Response {
        let parsed = serde_json::json!({
            "method": req.method,
            "path": req.path(),
            "query": req.query(),
            "x": req.header("X-Test"),
            "body": req.body_text(),
        });
        Response::json(200, &parsed).with_header("X-Served-By", "echo")
    }

    fn echo_server() -> HttpServer {
        HttpServer::start("echo", echo)
    }

    /// Writes `raw` on a new connection and reads until the server closes it.
    fn exchange(server: &HttpServer, raw: &[u8]) -> String {
        let mut s = TcpStream::connect(server.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(raw).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn reqwest_blocking_reuses_one_connection_for_sequential_requests() {
        let peers = Arc::new(Mutex::new(Vec::new()));
        let seen = peers.clone();
        let server = HttpServer::start("echo", move |req, stop| {
            seen.lock().unwrap().push(req.peer);
            echo(req, stop)
        });
        let client = reqwest::blocking::Client::new();
        for i in 0..5 {
            let resp = client.post(format!("{}/v1/x?i={i}", server.url())).header("X-Test", "t").body(format!("b{i}")).send().unwrap();
            assert_eq!(resp.status(), 200);
            assert_eq!(resp.headers()["x-served-by"], "echo");
            assert_eq!(resp.headers()["content-type"], "application/json");
            let v: serde_json::Value = resp.json().unwrap();
            let expected = serde_json::json!({"method": "POST", "path": "/v1/x", "query": format!("i={i}"), "x": "t", "body": format!("b{i}")});
            assert_eq!(v, expected);
        }
        let peers = peers.lock().unwrap();
        assert_eq!(peers.len(), 5);
        assert!(peers.iter().all(|p| *p == peers[0]), "one keep-alive connection served all five: {peers:?}");
    }

    #[test]
    fn keep_alive_pipelined_requests_then_close() {
        let server = echo_server();
        let out = exchange(
            &server,
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /c HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(out.matches("HTTP/1.1 200 OK\r\n").count(), 3, "{out}");
        assert!(out.contains(r#""path":"/b""#) && out.contains(r#""body":"abc""#), "{out}");
        assert_eq!(out.matches("Connection: close").count(), 1, "{out}");
        assert!(out.ends_with('}'), "closed after the last response: {out}");
    }

    #[test]
    fn chunked_body_is_decoded() {
        let server = echo_server();
        let out = exchange(
            &server,
            b"POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: t\r\n\r\n",
        );
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n") && out.contains(r#""body":"Wikipedia""#), "{out}");
    }

    #[test]
    fn expect_continue_is_answered_before_the_body() {
        let server = echo_server();
        let mut s = TcpStream::connect(server.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(b"PUT /e HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n").unwrap();
        let mut interim = [0u8; 25];
        s.read_exact(&mut interim).unwrap();
        assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
        s.write_all(b"ok").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n") && out.contains(r#""body":"ok""#), "{out}");
    }

    #[test]
    fn bad_requests_are_refused_and_closed() {
        let server = echo_server();
        for (raw, status) in [
            (&b"NOT HTTP\r\n\r\n"[..], "400"),
            (b"GET / HTTP/2.0\r\n\r\n", "505"),
            (b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n", "400"),
            (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "400"),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "501"),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", "400"),
            (b"POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", "413"),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", "413"),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", "400"),
            (b"GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", "400"),
        ] {
            let out = exchange(&server, raw);
            assert!(out.starts_with(&format!("HTTP/1.1 {status} ")), "{}: {out}", String::from_utf8_lossy(raw));
            assert!(out.contains("Connection: close\r\n"), "{out}");
        }
        let huge = format!("GET / HTTP/1.1\r\nX-Big: {}\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert!(exchange(&server, huge.as_bytes()).starts_with("HTTP/1.1 431 "));
    }

    #[test]
    fn head_and_bodiless_statuses_send_no_body() {
        let server = HttpServer::start("statuses", |req, _| match req.path() {
            "/204" => Response::empty(204),
            _ => Response::text(200, "hello"),
        });
        let out = exchange(&server, b"HEAD / HTTP/1.1\r\n\r\nGET /204 HTTP/1.1\r\n\r\nGET / HTTP/1.0\r\n\r\n");
        assert_eq!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n\
             HTTP/1.1 204 No Content\r\n\r\n\
             HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        );
    }

    #[test]
    fn drop_interrupts_sleeping_handlers_and_idle_connections() {
        let server = HttpServer::start("sleepy", |req, stop| {
            if req.path() == "/slow" {
                stop.sleep(Duration::from_secs(60));
            }
            Response::text(200, "done")
        });
        // An idle keep-alive connection…
        let client = reqwest::blocking::Client::new();
        assert_eq!(client.get(format!("{}/fast", server.url())).send().unwrap().text().unwrap(), "done");
        // …and a request stuck in its handler.
        let url = format!("{}/slow", server.url());
        let waiting = std::thread::spawn(move || reqwest::blocking::Client::new().get(url).send().map(|r| r.status()));
        std::thread::sleep(Duration::from_millis(200));
        let t = Instant::now();
        drop(server);
        assert!(t.elapsed() < Duration::from_secs(3), "drop took {:?}", t.elapsed());
        assert!(waiting.join().unwrap().is_err(), "the interrupted request gets no response");
    }
}
