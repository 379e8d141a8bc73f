//! The domain's closed sets of values (triad, foundation, origin...) as named OpenAPI enums.
//! Each is built from the domain's own `ALL` and `key()`, and views serialize a value as its
//! `key()`, so the document lists exactly the values the service sends and accepts.

use std::borrow::Cow;

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// A string enum of `keys`, in the domain's order.
fn string_enum<'a>(keys: impl IntoIterator<Item = &'a str>) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(keys))
        .build()
        .into()
}

/// Declares a schema-only type named `$schema` whose values are `$domain::ALL`'s keys.
macro_rules! keyed {
    ($(#[$doc:meta])* $schema:ident = $domain:ty, $key:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $schema;

        impl utoipa::PartialSchema for $schema {
            fn schema() -> RefOr<Schema> {
                string_enum(<$domain>::ALL.iter().map(|v| v.$key()))
            }
        }

        impl utoipa::ToSchema for $schema {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($schema))
            }
        }
    };
}

keyed!(Triad = domain::profile::Triad, key);
keyed!(PromptKey = domain::discovery::PromptKey, key);
keyed!(
    ConversationStatus = domain::discovery::ConversationStatus,
    key
);
keyed!(EditableField = domain::profile::EditableField, name);
keyed!(RevisionOrigin = domain::profile::RevisionOrigin, key);
keyed!(Author = domain::reflection::Author, key);
keyed!(ReplyEngine = domain::reflection::ReplyEngine, key);
keyed!(Frequency = domain::coaching::CoachingFrequency, key);
keyed!(Style = domain::coaching::CoachingStyle, key);
keyed!(Friction = domain::coaching::FrictionTolerance, key);
keyed!(TimeOfDay = domain::coaching::TimeOfDay, key);
keyed!(PreferencesSource = domain::coaching::PreferenceSource, key);
keyed!(CheckInOrigin = domain::coaching::CheckInOrigin, key);
keyed!(FoundationKey = domain::foundation::Foundation, key);
keyed!(MappedBy = domain::integration::MappedBy, key);
keyed!(ActivitySource = domain::account::Source, key);
keyed!(KeyScope = domain::account::KeyScope, key);
keyed!(EventType = domain::notifications::EventType, key);
keyed!(DeliveryStatus = domain::notifications::DeliveryStatus, key);

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::json;

    use domain::account::KeyScope;
    use domain::coaching::{
        CheckInOrigin, CoachingFrequency, CoachingStyle, FrictionTolerance, PreferenceSource,
        TimeOfDay,
    };
    use domain::discovery::{ConversationStatus, PromptKey};
    use domain::foundation::Foundation;
    use domain::profile::{EditableField, RevisionOrigin, Triad};
    use domain::reflection::{Author, ReplyEngine};

    /// Requests read these values through the domain types' own serde: both must spell them as
    /// `key()` does, or the document would promise values the server refuses.
    fn serde_matches_keys<T: Serialize + Copy>(all: &[T], key: impl Fn(T) -> &'static str) {
        for value in all {
            assert_eq!(serde_json::to_value(value).unwrap(), json!(key(*value)));
        }
    }

    #[test]
    fn serde_spells_every_value_as_its_key() {
        serde_matches_keys(&Triad::ALL, Triad::key);
        serde_matches_keys(&PromptKey::ALL, PromptKey::key);
        serde_matches_keys(&ConversationStatus::ALL, ConversationStatus::key);
        serde_matches_keys(&EditableField::ALL, EditableField::name);
        serde_matches_keys(&RevisionOrigin::ALL, RevisionOrigin::key);
        serde_matches_keys(&Author::ALL, Author::key);
        serde_matches_keys(&ReplyEngine::ALL, ReplyEngine::key);
        serde_matches_keys(CoachingFrequency::ALL, CoachingFrequency::key);
        serde_matches_keys(CoachingStyle::ALL, CoachingStyle::key);
        serde_matches_keys(FrictionTolerance::ALL, FrictionTolerance::key);
        serde_matches_keys(TimeOfDay::ALL, TimeOfDay::key);
        serde_matches_keys(PreferenceSource::ALL, PreferenceSource::key);
        serde_matches_keys(&CheckInOrigin::ALL, CheckInOrigin::key);
        serde_matches_keys(&Foundation::ALL, Foundation::key);
        serde_matches_keys(&KeyScope::ALL, KeyScope::key);
    }

    #[test]
    fn a_keyed_schema_lists_the_domain_values_in_order() {
        let schema =
            serde_json::to_value(<super::FoundationKey as utoipa::PartialSchema>::schema())
                .unwrap();
        assert_eq!(
            schema,
            json!({"type": "string", "enum": ["love", "strength", "mission", "vocation", "short_term", "long_term"]})
        );
    }
}
