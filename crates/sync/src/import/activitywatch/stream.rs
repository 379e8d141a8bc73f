//! The export read in one pass, bucket by bucket, without holding its text or a JSON tree:
//! serde_json's streaming [`serde_json::Deserializer`] drives seeds over `buckets`, each
//! bucket's fields and each event, and keeps only what the import uses of an event (its span,
//! its app as a number in [`Apps`], its AFK status). Window titles and every other field are
//! skipped as they are read. A bucket whose `type` or `hostname` comes after its `events`
//! (JSON objects have no order) is read the same way: the events are kept in that compact
//! form until the bucket ends and says what they are.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A span of time in nanoseconds since the Unix epoch, `[start, end)`.
pub(super) type Span = (i128, i128);

/// The apps seen, each stored once; events hold their number.
#[derive(Debug, Default)]
pub(super) struct Apps {
    names: Vec<String>,
    numbers: HashMap<String, u32>,
}

impl Apps {
    fn number(&mut self, app: &str) -> u32 {
        if let Some(n) = self.numbers.get(app) {
            return *n;
        }
        let n = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(app.to_owned());
        self.numbers.insert(app.to_owned(), n);
        n
    }

    /// The app numbered `n`.
    pub(super) fn name(&self, n: u32) -> &str {
        self.names.get(n as usize).map_or("", String::as_str)
    }
}

/// An AFK event's `data.status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Status {
    NotAfk,
    Afk,
    Other(String),
    Missing,
}

/// One event, as much of it as the import uses.
#[derive(Debug)]
pub(super) enum RawEvent {
    /// Not readable as an event of any bucket: why.
    Bad(String),
    Read {
        span: Span,
        /// `data.app`, trimmed, when a non-empty string.
        app: Option<u32>,
        status: Status,
    },
}

/// One bucket, as much of it as the import uses.
#[derive(Debug)]
pub(super) enum RawBucket {
    NotObject,
    Object {
        kind: Option<Value>,
        hostname: Option<Value>,
        /// `None` when absent or not a list.
        events: Option<Vec<RawEvent>>,
    },
}

/// Reads the export from `input`, handing each bucket to `bucket` as soon as it ends.
///
/// # Errors
/// serde_json's error for text that is not JSON or not an object with a `buckets` object.
pub(super) fn read<R: Read>(
    input: R,
    apps: &mut Apps,
    bucket: &mut dyn FnMut(String, RawBucket),
) -> Result<bool, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_reader(input);
    let found = Root { apps, bucket }.deserialize(&mut de)?;
    de.end()?;
    Ok(found)
}

/// The top-level object; `true` when it had `buckets`.
struct Root<'a> {
    apps: &'a mut Apps,
    bucket: &'a mut dyn FnMut(String, RawBucket),
}

impl<'de> DeserializeSeed<'de> for Root<'_> {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Root<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with a \"buckets\" object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "buckets" {
                map.next_value_seed(Buckets {
                    apps: &mut *self.apps,
                    bucket: &mut *self.bucket,
                })?;
                found = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The `buckets` object: id to bucket.
struct Buckets<'a> {
    apps: &'a mut Apps,
    bucket: &'a mut dyn FnMut(String, RawBucket),
}

impl<'de> DeserializeSeed<'de> for Buckets<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Buckets<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a \"buckets\" object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(id) = map.next_key::<String>()? {
            let read = map.next_value_seed(Bucket {
                apps: &mut *self.apps,
            })?;
            (self.bucket)(id, read);
        }
        Ok(())
    }
}

/// One bucket: its `type`, `hostname` and `events`; anything else is skipped unread.
struct Bucket<'a> {
    apps: &'a mut Apps,
}

/// The value is not an object (or, for [`Events`], not a list): it is read and dropped.
macro_rules! anything_else {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

impl<'de> DeserializeSeed<'de> for Bucket<'_> {
    type Value = RawBucket;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<RawBucket, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bucket<'_> {
    type Value = RawBucket;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a bucket")
    }
    anything_else!(RawBucket::NotObject);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawBucket, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(RawBucket::NotObject)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawBucket, A::Error> {
        let (mut kind, mut hostname, mut events) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => kind = Some(map.next_value::<Value>()?),
                "hostname" => hostname = Some(map.next_value::<Value>()?),
                "events" => {
                    // Events of a bucket already known to be of another type are not kept.
                    let wanted = kind.as_ref().is_none_or(|k| {
                        matches!(k.as_str(), Some(super::WINDOW_TYPE | super::AFK_TYPE))
                    });
                    events = if wanted {
                        map.next_value_seed(Events {
                            apps: &mut *self.apps,
                        })?
                    } else {
                        map.next_value::<IgnoredAny>()?;
                        Some(Vec::new())
                    };
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RawBucket::Object {
            kind,
            hostname,
            events,
        })
    }
}

/// A bucket's `events` list; `None` when it is not a list.
struct Events<'a> {
    apps: &'a mut Apps,
}

impl<'de> DeserializeSeed<'de> for Events<'_> {
    type Value = Option<Vec<RawEvent>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Events<'_> {
    type Value = Option<Vec<RawEvent>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of events")
    }
    anything_else!(None);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut events = Vec::new();
        while let Some(event) = seq.next_element_seed(Event {
            apps: &mut *self.apps,
        })? {
            events.push(event);
        }
        Ok(Some(events))
    }
}

/// One event: `timestamp`, `duration` and `data`.
struct Event<'a> {
    apps: &'a mut Apps,
}

impl<'de> DeserializeSeed<'de> for Event<'_> {
    type Value = RawEvent;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<RawEvent, D::Error> {
        d.deserialize_any(self)
    }
}

const NOT_AN_OBJECT: &str = "the event is not a JSON object";

impl<'de> Visitor<'de> for Event<'_> {
    type Value = RawEvent;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an event")
    }
    anything_else!(RawEvent::Bad(NOT_AN_OBJECT.to_owned()));
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawEvent, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(RawEvent::Bad(NOT_AN_OBJECT.to_owned()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEvent, A::Error> {
        let (mut timestamp, mut duration, mut data) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "timestamp" => timestamp = Some(map.next_value::<Value>()?),
                "duration" => duration = Some(map.next_value::<Value>()?),
                "data" => data = map.next_value_seed(Data)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let span = match super::span_of(timestamp.as_ref(), duration.as_ref()) {
            Ok(span) => span,
            Err(reason) => return Ok(RawEvent::Bad(reason)),
        };
        let Some((app, status)) = data else {
            return Ok(RawEvent::Bad("no \"data\" object".to_owned()));
        };
        let app = app
            .as_ref()
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| self.apps.number(a));
        let status = match status {
            None => Status::Missing,
            Some(Value::String(s)) => match s.as_str() {
                "not-afk" => Status::NotAfk,
                "afk" => Status::Afk,
                _ => Status::Other(s),
            },
            Some(_) => Status::Missing,
        };
        Ok(RawEvent::Read { span, app, status })
    }
}

/// An event's `data`: its `app` and `status`, nothing else (the title is skipped unread);
/// `None` when it is not an object.
struct Data;

impl<'de> DeserializeSeed<'de> for Data {
    type Value = Option<(Option<Value>, Option<Value>)>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Data {
    type Value = Option<(Option<Value>, Option<Value>)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an event's data")
    }
    anything_else!(None);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut app, mut status) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "app" => app = Some(map.next_value::<Value>()?),
                "status" => status = Some(map.next_value::<Value>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some((app, status)))
    }
}
