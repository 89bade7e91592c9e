//! A Server-Sent Events parser of bounded memory: an event's data is kept
//! up to the limit and no further; an event above it is skipped to its end
//! and reported by size. Lines end in `\n`, `\r\n` or `\r`; `data:` lines
//! join with `\n`; comments (`:`) and `id`/`retry` fields are ignored.
//!
//! A hand-written parser rather than a general one: the events' size must
//! be bounded while they arrive, not after.

/// What a complete event is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// An event of type `event` (empty when none was given) with its data.
    Event {
        /// The `event:` field.
        event: String,
        /// The joined `data:` lines.
        data: String,
    },
    /// An event whose data was larger than the limit, by at least this many
    /// bytes, dropped.
    TooLarge(usize),
}

/// The parser's state between chunks.
#[derive(Debug)]
pub struct SseParser {
    limit: usize,
    /// The line so far (at most the limit plus a field name's room).
    line: Vec<u8>,
    /// The line went past the room: its bytes are counted, not kept.
    line_over: Option<usize>,
    /// Skip a `\n` right after a `\r`.
    after_cr: bool,
    event: String,
    data: Vec<u8>,
    has_data: bool,
    /// The event's data went past the limit (bytes seen).
    over: Option<usize>,
}

/// Room for a field name and its colon besides the data.
const FIELD_ROOM: usize = 16;

impl SseParser {
    /// A parser keeping at most `limit` bytes of one event's data.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            line: Vec::new(),
            line_over: None,
            after_cr: false,
            event: String::new(),
            data: Vec::new(),
            has_data: false,
            over: None,
        }
    }

    /// Feeds `chunk`; appends the events it completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseItem>) {
        for &b in chunk {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(out),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(out);
                }
                _ => match &mut self.line_over {
                    Some(n) => *n += 1,
                    None if self.line.len() >= self.limit.saturating_add(FIELD_ROOM) => {
                        self.line_over = Some(self.line.len() + 1);
                    }
                    None => self.line.push(b),
                },
            }
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseItem>) {
        let line = std::mem::take(&mut self.line);
        if let Some(n) = self.line_over.take() {
            // Only data lines grow that long; any such line sinks its event.
            self.has_data = true;
            self.over = Some(self.over.unwrap_or(self.data.len()) + n);
            self.data.clear();
            return;
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.first() == Some(&b':') {
            return;
        }
        let (field, value) = match line.iter().position(|&c| c == b':') {
            Some(i) => {
                let value = line.get(i + 1..).unwrap_or_default();
                let value = value.strip_prefix(b" ").unwrap_or(value);
                (line.get(..i).unwrap_or_default(), value)
            }
            None => (&line[..], &[][..]),
        };
        match field {
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"data" => {
                let joined = self.data.len() + usize::from(self.has_data) + value.len();
                if let Some(n) = &mut self.over {
                    *n += value.len() + 1;
                } else if joined > self.limit {
                    self.over = Some(joined);
                    self.data.clear();
                } else {
                    if self.has_data {
                        self.data.push(b'\n');
                    }
                    self.data.extend_from_slice(value);
                }
                self.has_data = true;
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseItem>) {
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        let has_data = std::mem::replace(&mut self.has_data, false);
        if let Some(n) = self.over.take() {
            out.push(SseItem::TooLarge(n));
        } else if has_data {
            out.push(SseItem::Event {
                event,
                data: String::from_utf8_lossy(&data).into_owned(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(limit: usize, chunks: &[&[u8]]) -> Vec<SseItem> {
        let mut p = SseParser::new(limit);
        let mut out = Vec::new();
        for c in chunks {
            p.push(c, &mut out);
        }
        out
    }

    fn ev(event: &str, data: &str) -> SseItem {
        SseItem::Event {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_split_anywhere_and_multiline_data_join() {
        let text = b": hello\n\nevent: milky_event\ndata: {\"a\":\ndata: 1}\n\nevent: milky_event\r\ndata:{}\r\n\r\n";
        let whole = parse(1024, &[text]);
        assert_eq!(
            whole,
            vec![ev("milky_event", "{\"a\":\n1}"), ev("milky_event", "{}")]
        );
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(parse(1024, &bytes), whole);
        assert_eq!(
            parse(1024, &[b"data: x\r", b"\ndata: y\n\n"]),
            vec![ev("", "x\ny")]
        );
    }

    #[test]
    fn events_above_the_limit_are_dropped_and_the_next_one_is_read() {
        let big = format!("event: milky_event\ndata: {}\n\n", "x".repeat(10_000));
        let text = format!("{big}event: milky_event\ndata: ok\n\n");
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(7).collect();
        let got = parse(100, &chunks);
        assert!(
            matches!(got.first(), Some(SseItem::TooLarge(n)) if *n >= 10_000),
            "{got:?}"
        );
        assert_eq!(got.get(1), Some(&ev("milky_event", "ok")));
        let mut p = SseParser::new(100);
        p.push(big.as_bytes(), &mut Vec::new());
        assert!(p.line.capacity() < 1024 && p.data.capacity() < 1024);
        // Many small lines over the limit together.
        let lines = format!("{}\n", "data: 0123456789\n".repeat(20));
        assert!(matches!(
            parse(100, &[lines.as_bytes()]).as_slice(),
            [SseItem::TooLarge(_)]
        ));
    }
}
