//! Corpus loading: discover files under a root, parse Markdown / HTML / plain text into blocks
//! (headings, paragraphs, list items, code, figure captions) and image references.
//!
//! Files that cannot be used (unreadable, binary, not UTF-8, empty) are skipped and reported,
//! never fatal; symlink loops are detected by the walker and reported the same way.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use scraper::{ElementRef, Html, Node};
use serde::{Deserialize, Serialize};

use qa_core::error::{QaError, Result};

/// A document's format, known from its file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DocKind {
    /// `.md`, `.markdown`.
    Markdown,
    /// `.html`, `.htm`.
    Html,
    /// `.txt`, `.text`.
    Text,
}

impl DocKind {
    /// The format of a file with this extension (case-insensitive); `None` for other files.
    pub(crate) fn from_path(path: &Path) -> Option<DocKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" => Some(DocKind::Markdown),
            "html" | "htm" => Some(DocKind::Html),
            "txt" | "text" => Some(DocKind::Text),
            _ => None,
        }
    }
    /// The format's name, lower case (as recorded in the graph).
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Markdown => "markdown",
            DocKind::Html => "html",
            DocKind::Text => "text",
        }
    }
}

/// What a block of a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// A heading of level 1 to 6.
    Heading(u8),
    /// A paragraph (also a table row or a block quote).
    Paragraph,
    /// A list item.
    ListItem,
    /// A code block (line breaks kept).
    Code,
    /// Text describing an image (alt text and caption); carries the image id.
    Figure,
}

/// One block of a document's text: the unit chunking starts from.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub kind: BlockKind,
    pub text: String,
    /// Headings enclosing this block, outermost first.
    pub heading_path: Vec<String>,
    pub image_ids: Vec<String>,
}

/// An image a document references: its id, where to find it and the text that describes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImageRef {
    /// Stable id derived from the image path: `img_<path-without-extension>`.
    pub id: String,
    /// Path a user can open: the corpus root as given joined with the image's path (or the URL).
    pub source_path: String,
    /// The alt text, whitespace collapsed.
    pub alt: String,
    /// The caption (Markdown image title, HTML `figcaption` or `title`), whitespace collapsed.
    pub caption: String,
}

/// A loaded document: its blocks of text and the images it references.
#[derive(Debug, Clone)]
pub struct SourceDoc {
    /// Path relative to the corpus root, with `/` separators.
    pub rel_path: String,
    /// The document's format.
    pub kind: DocKind,
    /// The text, block by block, in document order.
    pub(crate) blocks: Vec<Block>,
    /// Images in order of first reference, each once.
    pub(crate) images: Vec<ImageRef>,
    /// The document's own title when it states one (Markdown/HTML `h1`, HTML `<title>`, the title
    /// line of a plain-text file); `None` when only the file name would say it.
    pub title: Option<String>,
}

impl SourceDoc {
    /// Whether the indexed text (not the markup, navigation or boilerplate left out) contains
    /// `needle`.
    pub fn text_contains(&self, needle: &str) -> bool {
        self.blocks.iter().any(|b| b.text.contains(needle))
    }
}

/// A file or folder left out of the corpus, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The path, relative to the corpus root for files.
    pub path: String,
    /// Why ("empty file", "binary content", "symlink loop", …).
    pub reason: String,
}

/// What loading a corpus found.
#[derive(Debug, Default, Serialize)]
pub struct LoadReport {
    /// Documents loaded.
    pub loaded: usize,
    /// Files and folders left out.
    pub skipped: Vec<Skipped>,
}

/// Find candidate files under `root` (a file or a folder), sorted for deterministic output.
/// Hidden entries are not descended into. Walk errors (symlink loops, permission) are skipped.
pub fn discover(root: &Path, report: &mut LoadReport) -> Result<Vec<PathBuf>> {
    if !root.exists() {
        return Err(QaError::io(
            "corpus path does not exist",
            root,
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(root).follow_links(true).sort_by_file_name().into_iter();
    for entry in walker.filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.')) {
        match entry {
            Ok(e) if e.file_type().is_file() && DocKind::from_path(e.path()).is_some() => files.push(e.into_path()),
            Ok(_) => {}
            Err(err) => {
                let path = err.path().map(|p| p.display().to_string()).unwrap_or_default();
                let reason = if err.loop_ancestor().is_some() {
                    "symlink loop".to_string()
                } else {
                    err.to_string()
                };
                tracing::warn!(%path, %reason, "skipping");
                report.skipped.push(Skipped { path, reason });
            }
        }
    }
    Ok(files)
}

/// Read and parse one file. `Ok(None)` means skipped (the reason is recorded in `report`).
pub fn load_file(root: &Path, path: &Path, report: &mut LoadReport) -> Option<SourceDoc> {
    let rel_path = relative_path(root, path);
    let mut skip = |reason: String| {
        tracing::warn!(path = %rel_path, %reason, "skipping file");
        report.skipped.push(Skipped { path: rel_path.clone(), reason });
        None
    };
    let kind = DocKind::from_path(path)?;
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return skip(format!("unreadable: {e}")),
    };
    if bytes.is_empty() {
        return skip("empty file".into());
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return skip("binary content".into());
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => return skip("not valid UTF-8".into()),
    };
    let root_display = if root.is_file() { root.parent().unwrap_or(Path::new("")) } else { root };
    let doc_dir = Path::new(&rel_path).parent().map(Path::to_path_buf).unwrap_or_default();
    let images = ImageResolver { root_display, doc_dir: &doc_dir };
    if kind == DocKind::Html && let Some(target) = redirect_target(&text) {
        return skip(format!("redirect stub (points to {target})"));
    }
    let (blocks, images, html_title) = match kind {
        DocKind::Markdown => {
            let (b, i) = parse_markdown(&text, &images);
            (b, i, None)
        }
        DocKind::Html => parse_html(&text, &images),
        DocKind::Text => (parse_text(&text), Vec::new(), None),
    };
    if blocks.iter().all(|b| b.text.trim().is_empty()) {
        return skip("no text content".into());
    }
    report.loaded += 1;
    let title = document_title(&blocks).or(html_title);
    Some(SourceDoc { rel_path, kind, blocks, images, title })
}

/// The title a document gives itself: its first level-1 heading, or a heading that opens it.
fn document_title(blocks: &[Block]) -> Option<String> {
    let h1 = blocks.iter().find(|b| b.kind == BlockKind::Heading(1));
    let opening = blocks.first().filter(|b| matches!(b.kind, BlockKind::Heading(_)));
    h1.or(opening).map(|b| b.text.trim().to_string()).filter(|t| !t.is_empty() && t.chars().count() <= 200)
}

/// `<meta http-equiv="refresh" content="0; url=…">` pages (moved-page stubs of generated docs)
/// carry no content of their own; indexing them would only duplicate titles.
fn redirect_target(html: &str) -> Option<String> {
    let head_end = html.to_ascii_lowercase().find("</head>").unwrap_or(html.len().min(16 * 1024));
    let head = html.get(..head_end)?;
    let lower = head.to_ascii_lowercase();
    let at = lower.find("http-equiv=\"refresh\"").or_else(|| lower.find("http-equiv='refresh'")).or_else(|| lower.find("http-equiv=refresh"))?;
    // The tag that holds the attribute, to read its `url=`.
    let tag_start = lower[..at].rfind('<').unwrap_or(at);
    let tag_end = lower[at..].find('>').map_or(lower.len(), |e| at + e);
    let tag = &head[tag_start..tag_end];
    let url = tag.to_ascii_lowercase().find("url=").map(|i| tag[i + 4..].trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace() || c == '/').to_string());
    // A page with a refresh header and real content is a page, not a stub.
    let doc = Html::parse_document(html);
    let body_text: usize = doc
        .root_element()
        .descendants()
        .filter_map(|n| n.value().as_text().map(|t| (n, t)))
        .filter(|(n, _)| !n.ancestors().any(|a| a.value().as_element().is_some_and(|e| HTML_SKIP.contains(&e.name()))))
        .map(|(_, t)| t.trim().len())
        .sum();
    (body_text < 400).then(|| url.filter(|u| !u.is_empty()).unwrap_or_else(|| "another page".into()))
}

/// `path` relative to `root` with `/` separators (the file name when `root` is a file).
fn relative_path(root: &Path, path: &Path) -> String {
    let rel = if root.is_file() {
        path.file_name().map(PathBuf::from).unwrap_or_else(|| path.to_path_buf())
    } else {
        path.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
    };
    rel.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

struct ImageResolver<'a> {
    root_display: &'a Path,
    doc_dir: &'a Path,
}

impl ImageResolver<'_> {
    fn resolve(&self, src: &str, alt: &str, caption: &str) -> ImageRef {
        let src = src.trim();
        let is_url = src.contains("://") || src.starts_with("data:");
        let (source_path, id_basis) = if is_url {
            (src.to_string(), src.rsplit('/').next().unwrap_or(src).to_string())
        } else {
            let clean = src.split(['?', '#']).next().unwrap_or(src);
            let rel = normalize_rel(&self.doc_dir.join(clean));
            (self.root_display.join(&rel).display().to_string(), rel)
        };
        let stem = id_basis.rsplit_once('.').map(|(s, _)| s).unwrap_or(&id_basis);
        ImageRef {
            id: format!("img_{}", slug(stem)),
            source_path,
            alt: collapse_ws(alt),
            caption: collapse_ws(caption),
        }
    }
}

/// Resolve `..` and `.` lexically (the image may not exist; we never touch the file system here).
fn normalize_rel(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// Lower-case ASCII slug with `-` separators, used for chunk and image ids.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() { "x".into() } else { out }
}

/// Words of `s` joined by single spaces.
fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn figure_text(img: &ImageRef) -> String {
    // Captions often carry their own "Figure 1:" label; do not add a second one.
    let caption = img.caption.trim();
    let labelled = caption.to_lowercase().starts_with("figure");
    let caption_part = if labelled { caption.to_string() } else { format!("Figure: {caption}") };
    match (img.alt.is_empty(), caption.is_empty() || caption == img.alt) {
        (false, false) => format!("{}. {}", caption_part.trim_end_matches('.'), img.alt),
        (false, true) => format!("Figure: {}", img.alt),
        (true, false) => caption_part,
        // The file's name, not its path: the folder a corpus is indexed from must not change its
        // text (or its embeddings, its chunks, its answers).
        (true, true) => format!("Figure: {}", img.source_path.rsplit(['/', '\\']).next().unwrap_or(&img.source_path)),
    }
}

/// Tracks the heading path while blocks are emitted.
#[derive(Default)]
struct BlockSink {
    blocks: Vec<Block>,
    headings: Vec<(u8, String)>,
    images: Vec<ImageRef>,
}

impl BlockSink {
    fn heading_path(&self) -> Vec<String> {
        self.headings.iter().map(|(_, t)| t.clone()).collect()
    }
    fn heading(&mut self, level: u8, text: &str) {
        let text = collapse_ws(text);
        if text.is_empty() {
            return;
        }
        while self.headings.last().is_some_and(|(l, _)| *l >= level) {
            self.headings.pop();
        }
        self.headings.push((level, text.clone()));
        let heading_path = self.heading_path();
        self.blocks.push(Block { kind: BlockKind::Heading(level), text, heading_path, image_ids: vec![] });
    }
    fn text(&mut self, kind: BlockKind, text: &str) {
        let text = if kind == BlockKind::Code { text.trim_matches('\n').to_string() } else { collapse_ws(text) };
        if text.trim().is_empty() {
            return;
        }
        let heading_path = self.heading_path();
        self.blocks.push(Block { kind, text, heading_path, image_ids: vec![] });
    }
    fn image(&mut self, img: ImageRef) {
        let heading_path = self.heading_path();
        let text = figure_text(&img);
        self.blocks.push(Block { kind: BlockKind::Figure, text, heading_path, image_ids: vec![img.id.clone()] });
        if !self.images.iter().any(|i| i.id == img.id) {
            self.images.push(img);
        }
    }
}

fn parse_markdown(text: &str, resolver: &ImageResolver) -> (Vec<Block>, Vec<ImageRef>) {
    let mut sink = BlockSink::default();
    let mut buf = String::new();
    let mut heading: Option<u8> = None;
    let mut in_code = false;
    // (dest, title, alt-so-far) while inside an image
    let mut image: Option<(String, String, String)> = None;
    let mut list_depth = 0usize;
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(text, opts) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                flush(&mut sink, &mut buf, list_depth);
                heading = Some(heading_level(level));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(level) = heading.take() {
                    sink.heading(level, &buf);
                }
                buf.clear();
            }
            Event::Start(Tag::CodeBlock(_)) => {
                flush(&mut sink, &mut buf, list_depth);
                in_code = true;
            }
            Event::End(TagEnd::CodeBlock) => {
                sink.text(BlockKind::Code, &buf);
                buf.clear();
                in_code = false;
            }
            Event::Start(Tag::Image { dest_url, title, .. }) => {
                image = Some((dest_url.to_string(), title.to_string(), String::new()));
            }
            Event::End(TagEnd::Image) => {
                if let Some((dest, title, alt)) = image.take() {
                    // The paragraph text so far stays; the figure becomes its own block.
                    flush(&mut sink, &mut buf, list_depth);
                    sink.image(resolver.resolve(&dest, &alt, &title));
                }
            }
            Event::Start(Tag::Item) => {
                flush(&mut sink, &mut buf, list_depth);
                list_depth += 1;
            }
            Event::End(TagEnd::Item) => {
                flush(&mut sink, &mut buf, list_depth);
                list_depth = list_depth.saturating_sub(1);
            }
            Event::Start(Tag::Paragraph | Tag::BlockQuote(_) | Tag::Table(_)) => flush(&mut sink, &mut buf, list_depth),
            Event::End(TagEnd::Paragraph | TagEnd::BlockQuote(_) | TagEnd::TableRow | TagEnd::TableHead) => {
                flush(&mut sink, &mut buf, list_depth)
            }
            Event::End(TagEnd::TableCell) => buf.push_str(" | "),
            Event::Text(t) => match image.as_mut() {
                Some((_, _, alt)) => alt.push_str(&t),
                None => buf.push_str(&t),
            },
            Event::Code(t) => match image.as_mut() {
                Some((_, _, alt)) => alt.push_str(&t),
                None => {
                    buf.push('`');
                    buf.push_str(&t);
                    buf.push('`');
                }
            },
            Event::SoftBreak | Event::HardBreak => buf.push(if in_code { '\n' } else { ' ' }),
            // Raw HTML inside Markdown: keep images, drop the markup.
            Event::Html(h) | Event::InlineHtml(h) if h.contains("<img") => {
                let frag = Html::parse_fragment(&h);
                for img in frag.select(&IMG_SELECTOR) {
                    let v = img.value();
                    if let Some(src) = v.attr("src") {
                        flush(&mut sink, &mut buf, list_depth);
                        sink.image(resolver.resolve(src, v.attr("alt").unwrap_or(""), v.attr("title").unwrap_or("")));
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut sink, &mut buf, list_depth);
    (sink.blocks, sink.images)
}

fn flush(sink: &mut BlockSink, buf: &mut String, list_depth: usize) {
    if !buf.trim().is_empty() {
        let kind = if list_depth > 0 { BlockKind::ListItem } else { BlockKind::Paragraph };
        sink.text(kind, buf);
    }
    buf.clear();
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

static IMG_SELECTOR: std::sync::LazyLock<scraper::Selector> =
    std::sync::LazyLock::new(|| scraper::Selector::parse("img").expect("static selector"));
static MAIN_SELECTOR: std::sync::LazyLock<scraper::Selector> =
    std::sync::LazyLock::new(|| scraper::Selector::parse("main, [role=main], article").expect("static selector"));
static BODY_SELECTOR: std::sync::LazyLock<scraper::Selector> =
    std::sync::LazyLock::new(|| scraper::Selector::parse("body").expect("static selector"));
static TITLE_SELECTOR: std::sync::LazyLock<scraper::Selector> =
    std::sync::LazyLock::new(|| scraper::Selector::parse("head > title").expect("static selector"));
static FIGCAPTION_SELECTOR: std::sync::LazyLock<scraper::Selector> =
    std::sync::LazyLock::new(|| scraper::Selector::parse("figcaption").expect("static selector"));

/// Elements whose content is never document text.
const HTML_SKIP: &[&str] = &[
    "nav", "script", "style", "noscript", "template", "head", "iframe", "form", "button", "select", "svg",
    "canvas", "input", "textarea", "footer",
];
const HTML_BLOCK: &[&str] = &[
    "p", "div", "section", "article", "main", "blockquote", "dd", "dt", "tr", "table", "ul", "ol", "dl", "header",
    "aside", "details", "summary", "body", "hr", "br",
];

fn parse_html(text: &str, resolver: &ImageResolver) -> (Vec<Block>, Vec<ImageRef>, Option<String>) {
    let doc = Html::parse_document(text);
    let title = doc.select(&TITLE_SELECTOR).next().map(|t| collapse_ws(&t.text().collect::<String>())).filter(|t| !t.is_empty());
    let mut sink = BlockSink::default();
    let mut buf = String::new();
    // Prefer the page's main content; site chrome (menus, theme pickers) lives outside it.
    let root = doc.select(&MAIN_SELECTOR).next().or_else(|| doc.select(&BODY_SELECTOR).next());
    match root {
        Some(root) => walk_html(root, &mut sink, &mut buf, resolver),
        None => walk_html(doc.root_element(), &mut sink, &mut buf, resolver),
    }
    flush(&mut sink, &mut buf, 0);
    (sink.blocks, sink.images, title)
}

/// The text of an element without the elements that are never document text — a heading's
/// "Copy item path" button (rustdoc puts one in every item page's `h1`) is no part of its title —
/// and with `separator` where a block element inside starts, so that `impl<T> Any for T<div>where
/// T: ?Sized</div>` does not read "Twhere".
fn visible_text(el: ElementRef, separator: char) -> String {
    let mut out = String::new();
    for node in el.children() {
        match node.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) if !HTML_SKIP.contains(&e.name()) => {
                if HTML_BLOCK.contains(&e.name()) && !out.is_empty() && !out.ends_with(char::is_whitespace) {
                    out.push(separator);
                }
                if let Some(child) = ElementRef::wrap(node) {
                    out.push_str(&visible_text(child, separator));
                }
            }
            _ => {}
        }
    }
    out
}

fn walk_html(el: ElementRef, sink: &mut BlockSink, buf: &mut String, resolver: &ImageResolver) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => buf.push_str(t),
            Node::Element(_) => {
                let Some(child_el) = ElementRef::wrap(child) else { continue };
                let name = child_el.value().name();
                if HTML_SKIP.contains(&name) {
                    continue;
                }
                match name {
                    "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                        flush(sink, buf, 0);
                        let level = name[1..].parse().unwrap_or(1);
                        sink.heading(level, &visible_text(child_el, ' '));
                    }
                    "pre" => {
                        flush(sink, buf, 0);
                        sink.text(BlockKind::Code, &visible_text(child_el, '\n'));
                    }
                    "li" => {
                        flush(sink, buf, 0);
                        walk_html(child_el, sink, buf, resolver);
                        flush(sink, buf, 1);
                    }
                    "figure" => {
                        flush(sink, buf, 0);
                        let caption = child_el
                            .select(&FIGCAPTION_SELECTOR)
                            .next()
                            .map(|c| c.text().collect::<String>())
                            .unwrap_or_default();
                        let mut any = false;
                        for img in child_el.select(&IMG_SELECTOR) {
                            if let Some(src) = img.value().attr("src") {
                                any = true;
                                sink.image(resolver.resolve(src, img.value().attr("alt").unwrap_or(""), &caption));
                            }
                        }
                        if !any {
                            walk_html(child_el, sink, buf, resolver);
                            flush(sink, buf, 0);
                        }
                    }
                    "img" => {
                        if let Some(src) = child_el.value().attr("src") {
                            flush(sink, buf, 0);
                            let v = child_el.value();
                            sink.image(resolver.resolve(src, v.attr("alt").unwrap_or(""), v.attr("title").unwrap_or("")));
                        }
                    }
                    "code" | "kbd" | "samp" => {
                        buf.push('`');
                        buf.push_str(&child_el.text().collect::<String>());
                        buf.push('`');
                    }
                    "td" | "th" => {
                        walk_html(child_el, sink, buf, resolver);
                        buf.push_str(" | ");
                    }
                    _ if HTML_BLOCK.contains(&name) => {
                        flush(sink, buf, 0);
                        walk_html(child_el, sink, buf, resolver);
                        flush(sink, buf, 0);
                    }
                    _ => walk_html(child_el, sink, buf, resolver),
                }
            }
            _ => {}
        }
    }
}

fn parse_text(text: &str) -> Vec<Block> {
    let mut sink = BlockSink::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut para = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        let next = lines.get(i + 1).map(|l| l.trim()).unwrap_or("");
        let underlined = !line.trim().is_empty()
            && next.len() >= 3
            && (next.chars().all(|c| c == '=') || next.chars().all(|c| c == '-'));
        let shouty = is_shouty_heading(line);
        // A file that opens with a short line standing alone ("Demon Dice", then a blank line)
        // states its title there.
        let title_line = sink.blocks.is_empty() && para.is_empty() && next.is_empty() && is_title_line(line);
        if title_line && !underlined && !shouty {
            sink.heading(1, line.trim());
            i += 1;
            continue;
        }
        if underlined || shouty {
            flush(&mut sink, &mut para, 0);
            let level = if underlined && next.starts_with('=') { 1 } else { 2 };
            sink.heading(level, line.trim());
            i += if underlined { 2 } else { 1 };
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut sink, &mut para, 0);
        } else {
            para.push_str(line);
            para.push('\n');
        }
        i += 1;
    }
    flush(&mut sink, &mut para, 0);
    sink.blocks
}

/// A short line that reads as a title: a few words, no sentence punctuation at its end.
fn is_title_line(line: &str) -> bool {
    let t = line.trim();
    let words = t.split_whitespace().count();
    (1..=12).contains(&words) && t.chars().count() <= 120 && t.chars().any(char::is_alphabetic) && !t.ends_with(['.', ',', ';', ':', '!', '?'])
}

/// A short line in capitals with at least two letters, e.g. "BROWN-OUTS AND RESETS".
fn is_shouty_heading(line: &str) -> bool {
    let t = line.trim();
    let letters: Vec<char> = t.chars().filter(|c| c.is_alphabetic()).collect();
    t.len() <= 80
        && letters.len() >= 3
        && letters.iter().all(|c| c.is_uppercase())
        && !t.ends_with(['.', ',', ';'])
}

/// Group image references of a corpus by id (the same picture may be referenced from many files).
pub fn images_by_id<'a>(docs: impl IntoIterator<Item = &'a SourceDoc>) -> BTreeMap<String, ImageRef> {
    let mut out = BTreeMap::new();
    for d in docs {
        for img in &d.images {
            out.entry(img.id.clone()).or_insert_with(|| img.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver() -> ImageResolver<'static> {
        ImageResolver { root_display: Path::new("corpus"), doc_dir: Path::new("guide") }
    }

    #[test]
    fn markdown_keeps_headings_code_and_images() {
        let md = "# Title\n\nIntro text.\n\n## Part\n\n![A wiring diagram](../img/wiring.svg \"Figure 1\")\n\n```c\nint x = 1;\n```\n\n- item one\n- item two\n";
        let (blocks, images) = parse_markdown(md, &resolver());
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].id, "img_img-wiring");
        assert_eq!(images[0].source_path, "corpus/img/wiring.svg");
        assert_eq!(images[0].alt, "A wiring diagram");
        assert_eq!(images[0].caption, "Figure 1");
        let fig = blocks.iter().find(|b| b.kind == BlockKind::Figure).unwrap();
        assert_eq!(fig.heading_path, vec!["Title", "Part"]);
        assert_eq!(fig.image_ids, vec!["img_img-wiring"]);
        assert!(blocks.iter().any(|b| b.kind == BlockKind::Code && b.text == "int x = 1;"));
        assert_eq!(blocks.iter().filter(|b| b.kind == BlockKind::ListItem).count(), 2);
    }

    #[test]
    fn html_strips_nav_script_style_and_keeps_figures() {
        let html = r#"<html><head><title>t</title><style>.x{color:red}</style></head><body>
            <nav><a href="/">Home menu</a></nav><script>var secret = 1;</script>
            <h1>Solar</h1><p>Panels <b>charge</b> the battery.</p>
            <figure><img src="pics/panel.svg" alt="A solar panel"><figcaption>Figure 2: panel</figcaption></figure>
            <pre><code>fn main() {}</code></pre></body></html>"#;
        let (blocks, images, title) = parse_html(html, &resolver());
        assert_eq!(title.as_deref(), Some("t"));
        let all: String = blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>().join("\n");
        assert!(!all.contains("Home menu") && !all.contains("secret") && !all.contains("color"), "{all}");
        assert!(all.contains("Panels charge the battery."));
        assert!(all.contains("fn main() {}"));
        assert_eq!(images[0].caption, "Figure 2: panel");
        assert_eq!(images[0].source_path, "corpus/guide/pics/panel.svg");
        assert_eq!(blocks[0].kind, BlockKind::Heading(1));
    }

    #[test]
    fn an_image_without_alt_or_caption_is_named_by_its_file_not_the_corpus_folder() {
        let html = r#"<html><body><h1>Memory</h1><p>The map:</p><img src="../assets/nrf52-memory-map.png"></body></html>"#;
        for root in ["corpus", "/home/someone/books/embedded"] {
            let r = ImageResolver { root_display: Path::new(root), doc_dir: Path::new("guide") };
            let (blocks, images, _) = parse_html(html, &r);
            assert_eq!(images[0].source_path, format!("{root}/assets/nrf52-memory-map.png"), "the evidence keeps the full path");
            let fig = blocks.iter().find(|b| b.kind == BlockKind::Figure).unwrap();
            assert_eq!(fig.text, "Figure: nrf52-memory-map.png");
        }
    }

    #[test]
    fn a_button_inside_a_heading_is_not_its_text() {
        let html = r#"<html><body><h1>Struct <span class="struct">Vec</span>&nbsp;<button id="copy-path" title="Copy item path to clipboard">Copy item path</button></h1><p>A growable array.</p></body></html>"#;
        let (blocks, _, _) = parse_html(html, &resolver());
        assert_eq!(blocks[0].kind, BlockKind::Heading(1));
        assert_eq!(blocks[0].text.split_whitespace().collect::<Vec<_>>(), ["Struct", "Vec"], "{:?}", blocks[0].text);
        // A block inside a heading or a listing starts a new word, not the end of the last one.
        let html = r#"<html><body><h3 class="code-header">impl&lt;T&gt; Any for T<div class="where">where T: 'static</div></h3><pre><code>pub struct Vec&lt;T&gt;<div class="where">where T: Sized</div></code></pre></body></html>"#;
        let (blocks, _, _) = parse_html(html, &resolver());
        assert!(blocks[0].text.contains("for T where T"), "{:?}", blocks[0].text);
        assert!(blocks[1].text.contains("Vec<T>\nwhere T"), "{:?}", blocks[1].text);
    }

    #[test]
    fn plain_text_detects_headings() {
        let blocks = parse_text("BROWN-OUTS\n\nThe board resets.\nIt happens at night.\n\nWi-Fi\n-----\nReconnect.");
        assert_eq!(blocks[0].kind, BlockKind::Heading(2));
        assert_eq!(blocks[1].text, "The board resets. It happens at night.");
        assert_eq!(blocks[2].text, "Wi-Fi");
        assert_eq!(blocks[3].heading_path, vec!["Wi-Fi"]);
    }

    #[test]
    fn plain_text_title_line_becomes_the_title() {
        let blocks = parse_text("Demon Dice\n\nDemon Dice is a collectible dice game.\n");
        assert_eq!(blocks[0].kind, BlockKind::Heading(1));
        assert_eq!(document_title(&blocks).as_deref(), Some("Demon Dice"));
        assert_eq!(blocks[1].heading_path, vec!["Demon Dice"]);
        // A first line that is a sentence is not a title.
        let blocks = parse_text("The board resets at night.\n\nMore text here.");
        assert_eq!(blocks[0].kind, BlockKind::Paragraph);
        assert_eq!(document_title(&blocks), None);
    }

    #[test]
    fn redirect_stubs_are_recognised() {
        let stub = r#"<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0; URL=ch19-03-advanced-traits.html"></head><body>Redirecting to <a href="ch19-03-advanced-traits.html">...</a></body></html>"#;
        assert_eq!(redirect_target(stub).as_deref(), Some("ch19-03-advanced-traits.html"));
        let page = "<html><head><title>x</title></head><body><p>A real page.</p></body></html>";
        assert_eq!(redirect_target(page), None);
        let scripted = format!(r#"<html><head><meta http-equiv="refresh" content="0; URL=b.html"></head><body><p>Redirecting</p><script>{}</script></body></html>"#, "var x = 1;".repeat(100));
        assert_eq!(redirect_target(&scripted).as_deref(), Some("b.html"), "script text is not page content");
        let long = format!(r#"<html><head><meta http-equiv="refresh" content="300"></head><body><p>{}</p></body></html>"#, "News text. ".repeat(100));
        assert_eq!(redirect_target(&long), None, "a refreshing page with content is a page");
    }

    #[test]
    fn slug_is_stable() {
        assert_eq!(slug("Images/Wiring Diagram"), "images-wiring-diagram");
        assert_eq!(slug("..."), "x");
    }
}
