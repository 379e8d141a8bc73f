//! The contract's JSON shapes of domain records, in one place so every route (and the export)
//! renders a record the same way.

use domain::account::{ActivityEntry, ApiKey, Session, User};
use domain::coaching::{CheckIn, CoachingPreferences};
use domain::discovery::Conversation;
use domain::ids::UserId;
use domain::integration::TaskMapping;
use domain::pagination::Page;
use domain::profile::{Profile, Revision};
use domain::reflection::ReflectionMessage;
use serde::Serialize;
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::routes::rfc3339;

/// A person, as `GET /api/me` and sign-in answer with it. Typed rather than a `Value`: it is
/// serialized straight into the body, without building a JSON tree first, on every page load.
#[derive(Debug, Serialize)]
pub struct UserView<'a> {
    id: UserId,
    email: &'a str,
    name: Option<&'a str>,
    is_admin: bool,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    last_login_at: Option<OffsetDateTime>,
}

#[must_use]
pub fn user(u: &User, is_admin: bool) -> UserView<'_> {
    UserView {
        id: u.id,
        email: u.email.as_str(),
        name: u.name.as_deref(),
        is_admin,
        created_at: u.created_at,
        last_login_at: u.last_login_at,
    }
}

#[must_use]
pub fn conversation(c: &Conversation) -> Value {
    let answers: Vec<Value> = c
        .answers()
        .map(|a| {
            json!({
                "step": a.step.get(),
                "key": a.step.prompt().key.key(),
                "text": a.text.as_str(),
                "answered_at": rfc3339(a.answered_at),
            })
        })
        .collect();
    json!({
        "id": c.id,
        "status": c.status.key(),
        "answers": answers,
        "next_step": c.next_step().map(|s| s.get()),
        "near_term_goal_raw": c.near_term_goal_raw(),
        "long_term_goal_raw": c.long_term_goal_raw(),
        "created_at": rfc3339(c.created_at),
        "completed_at": c.completed_at.map(rfc3339),
    })
}

#[must_use]
pub fn profile(p: &Profile) -> Value {
    json!({
        "id": p.id,
        "enneagram_type": p.enneagram_type.get(),
        "triad": p.triad().key(),
        "love_summary": p.prose.love_summary.as_str(),
        "strength_summary": p.prose.strength_summary.as_str(),
        "mission_summary": p.prose.mission_summary.as_str(),
        "vocation_summary": p.prose.vocation_summary.as_str(),
        "overlap_narrative": p.prose.overlap_narrative.as_str(),
        "near_term_goal_summary": p.prose.near_term_goal_summary.as_ref().map(|g| g.as_str()),
        "long_term_goal_summary": p.prose.long_term_goal_summary.as_ref().map(|g| g.as_str()),
        "locked": p.locked,
        "affirmed_at": p.affirmed_at.map(rfc3339),
        "version": p.version,
        "created_at": rfc3339(p.created_at),
        "updated_at": rfc3339(p.updated_at),
    })
}

#[must_use]
pub fn revision(r: &Revision) -> Value {
    json!({
        "id": r.id,
        "number": r.number,
        "origin": r.origin.key(),
        "snapshot": r.snapshot,
        "note": r.note.as_ref().map(|n| n.as_str()),
        "created_at": rfc3339(r.created_at),
    })
}

#[must_use]
pub fn reflection_message(m: &ReflectionMessage) -> Value {
    json!({"id": m.id, "author": m.author.key(), "text": m.text, "created_at": rfc3339(m.created_at)})
}

#[must_use]
pub fn preferences(p: &CoachingPreferences) -> Value {
    let s = &p.settings;
    json!({
        "coaching_frequency": s.coaching_frequency.key(),
        "coaching_style": s.coaching_style.key(),
        "misalignment_threshold": s.misalignment_threshold.get(),
        "friction_tolerance": s.friction_tolerance.key(),
        "prefer_questions_over_directives": s.prefer_questions_over_directives,
        "time_of_day_preference": s.time_of_day_preference.key(),
        "source": p.source.key(),
        "updated_at": rfc3339(p.updated_at),
    })
}

#[must_use]
pub fn checkin(c: &CheckIn) -> Value {
    json!({
        "id": c.id,
        "message": c.message,
        "quoted_goals": c.quoted_goals,
        "observation": c.observation,
        "origin": c.origin.key(),
        "created_at": rfc3339(c.created_at),
        "responded_at": c.response.as_ref().map(|r| rfc3339(r.responded_at)),
        "still_valid": c.response.as_ref().map(|r| r.still_valid),
        "response_note": c.response.as_ref().and_then(|r| r.note.as_ref()).map(|n| n.as_str()),
    })
}

#[must_use]
pub fn task_mapping(m: &TaskMapping) -> Value {
    json!({
        "id": m.id,
        "user_id": m.user_id,
        "external_task_id": m.external_task_id,
        "task_label": m.task_label,
        "foundation": m.foundation.key(),
        "minutes": m.minutes,
        "occurred_at": rfc3339(m.occurred_at),
        "created_at": rfc3339(m.created_at),
        "updated_at": rfc3339(m.updated_at),
    })
}

#[must_use]
pub fn activity(a: &ActivityEntry) -> Value {
    json!({
        "id": a.id,
        "user_id": a.user_id,
        "at": rfc3339(a.at),
        "action": a.action,
        "method": a.method,
        "path": a.path,
        "status": a.status,
        "source": a.source.map(|s| s.key()),
        "duration_ms": a.duration_ms,
        "request_id": a.request_id,
        "ip": a.ip,
        "user_agent": a.user_agent,
    })
}

#[must_use]
pub fn session(s: &Session, current: bool) -> Value {
    json!({
        "id": s.id,
        "created_at": rfc3339(s.created_at),
        "last_used_at": rfc3339(s.last_used_at),
        "expires_at": rfc3339(s.expires_at),
        "user_agent": s.user_agent,
        "ip": s.ip,
        "current": current,
        "revoked_at": s.revoked_at.map(rfc3339),
    })
}

/// A personal API key as listed: never its secret or hash.
#[must_use]
pub fn api_key(k: &ApiKey) -> Value {
    json!({
        "id": k.id,
        "name": k.name,
        "prefix": k.prefix,
        "created_at": rfc3339(k.created_at),
        "last_used_at": k.last_used_at.map(rfc3339),
    })
}

/// A page of a growing list in the contract's envelope: `{"items": [...], "next_cursor"}`.
#[must_use]
pub fn page<T>(page: &Page<T>, item: impl Fn(&T) -> Value) -> Value {
    json!({
        "items": page.items.iter().map(item).collect::<Vec<_>>(),
        "next_cursor": page.next_cursor.map(|c| c.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::account::Email;
    use time::macros::datetime;

    #[test]
    fn a_person_renders_as_the_contract_says() {
        let mut ada = User {
            id: UserId::new(),
            email: Email::new("ada@example.org").unwrap(),
            name: Some("Ada \"Countess\" Lovelace".into()),
            created_at: datetime!(2026-11-20 10:00:00.25 UTC),
            last_login_at: Some(datetime!(2026-11-21 08:30:00 UTC)),
        };
        assert_eq!(
            serde_json::to_value(user(&ada, true)).unwrap(),
            json!({
                "id": ada.id.to_string(),
                "email": "ada@example.org",
                "name": "Ada \"Countess\" Lovelace",
                "is_admin": true,
                // As every other timestamp of the contract.
                "created_at": rfc3339(ada.created_at),
                "last_login_at": "2026-11-21T08:30:00Z",
            })
        );
        assert_eq!(rfc3339(ada.created_at), "2026-11-20T10:00:00.25Z");
        (ada.name, ada.last_login_at) = (None, None);
        let plain = serde_json::to_value(user(&ada, false)).unwrap();
        assert_eq!(
            (&plain["name"], &plain["last_login_at"], &plain["is_admin"]),
            (&Value::Null, &Value::Null, &json!(false))
        );
    }
}
