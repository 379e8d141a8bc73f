//! [`UserRepository`] over diesel: sign-in upsert, look-ups, deletion, and the account export
//! and counts that read every table the person owns.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::dsl::{count_star, max, min};
use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::RepoError;
use domain::account::{
    AccountData, ActivityEntry, ApiKey, Email, LoginIdentity, Session, Source, TimeZone, User,
    UserStats,
};
use domain::coaching::{CheckIn, CoachingPreferences};
use domain::ids::UserId;
use domain::integration::TaskMapping;
use domain::notifications::Webhook;
use domain::ports::UserRepository;
use domain::profile::{Profile, Revision};
use domain::reflection::{Author, ReflectionMessage};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::connection::DbConnection;
use crate::convert::{from_db_opt, invalid, to_db};
use crate::error::StoreResult;
use crate::models::activity::ActivityRow;
use crate::models::api_key::ApiKeyRow;
use crate::models::checkin::CheckInRow;
use crate::models::conversation::{AnswerRow, ConversationRow};
use crate::models::notification::WebhookRow;
use crate::models::preferences::PreferencesRow;
use crate::models::profile::ProfileRow;
use crate::models::reflection::ReflectionRow;
use crate::models::revision::RevisionRow;
use crate::models::session::SessionRow;
use crate::models::task_mapping::TaskMappingRow;
use crate::models::user::UserRow;
use crate::schema::{
    activity_log, api_keys, coaching_checkin, coaching_preferences, discovery_answer,
    discovery_conversation, discovery_profile, notification_settings, profile_revision,
    reflection_message, sessions, task_mapping, users, webhooks,
};
use crate::tx::{on_backend, read_tx};

diesel::define_sql_function! {
    /// The first non-NULL argument.
    fn coalesce(x: diesel::sql_types::Nullable<diesel::sql_types::Text>, y: diesel::sql_types::Nullable<diesel::sql_types::Text>) -> diesel::sql_types::Nullable<diesel::sql_types::Text>;
}

super::declare::repository!(
    /// People, keyed by the `(issuer, subject)` their identity provider vouched for.
    DieselUserRepository
);

#[async_trait]
impl UserRepository for DieselUserRepository {
    async fn upsert_login(
        &self,
        identity: &LoginIdentity,
        now: OffsetDateTime,
    ) -> Result<User, RepoError> {
        let row = UserRow {
            id: UserId::new().to_string(),
            email: identity.email.as_str().to_owned(),
            name: identity.name.clone(),
            created_at: to_db(now),
            last_login_at: Some(to_db(now)),
            oidc_issuer: identity.issuer.clone(),
            oidc_subject: identity.subject.clone(),
        };
        self.db
            .write("signing a user in", move |conn| {
                // One statement, so two first sign-ins at once cannot both insert. The e-mail
                // follows the provider; a provider that sends no name keeps the stored one.
                let stored: UserRow = on_backend!(conn, c => diesel::insert_into(users::table)
                    .values(&row)
                    .on_conflict((users::oidc_issuer, users::oidc_subject))
                    .do_update()
                    .set((
                        users::email.eq(excluded(users::email)),
                        users::name.eq(coalesce(excluded(users::name), users::name)),
                        users::last_login_at.eq(excluded(users::last_login_at)),
                    ))
                    .returning(UserRow::as_returning())
                    .get_result(c))?;
                Ok(User::try_from(stored)?)
            })
            .await
    }

    async fn get(&self, id: UserId) -> Result<Option<User>, RepoError> {
        self.db
            .run("loading a user", move |conn| {
                let row = users::table
                    .find(id.to_string())
                    .select(UserRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(User::try_from).transpose()?)
            })
            .await
    }

    /// Two issuers may vouch for the same address, so several people may share it: the one
    /// who signed up first is returned.
    async fn find_by_email(&self, email: &Email) -> Result<Option<User>, RepoError> {
        let email = email.as_str().to_owned();
        self.db
            .run("finding a user by e-mail", move |conn| {
                let row = users::table
                    .filter(users::email.eq(email))
                    .order((users::created_at.asc(), users::id.asc()))
                    .select(UserRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(User::try_from).transpose()?)
            })
            .await
    }

    async fn delete(&self, id: UserId) -> Result<bool, RepoError> {
        self.db
            .write("deleting a user", move |conn| {
                let user = id.to_string();
                // Every owned row goes with it through ON DELETE CASCADE, except the activity
                // log's, which has no foreign key (migration 009). They go next, in a statement
                // of their own: an activity batch holding this person's row (see
                // repos/activity.rs) has committed by then and its entries are seen and
                // deleted; a batch that comes later finds the person gone and skips them.
                let n = diesel::delete(users::table.find(&user)).execute(conn)?;
                diesel::delete(activity_log::table.filter(activity_log::user_id.eq(&user)))
                    .execute(conn)?;
                Ok(n > 0)
            })
            .await
    }

    async fn export(&self, id: UserId) -> Result<Option<AccountData>, RepoError> {
        let user = id.to_string();
        self.db
            .run("exporting an account", move |conn| {
                read_tx(conn, |conn| export(conn, &user))
            })
            .await
    }

    async fn stats(&self, id: UserId, since: OffsetDateTime) -> Result<UserStats, RepoError> {
        let (user, since) = (id.to_string(), to_db(since));
        self.db
            .run("counting an account's records", move |conn| {
                read_tx(conn, |conn| stats(conn, &user, since))
            })
            .await
    }

    async fn time_zone(&self, id: UserId) -> Result<Option<String>, RepoError> {
        self.db
            .run("reading a time zone", move |conn| {
                Ok(users::table
                    .find(id.to_string())
                    .select(users::time_zone)
                    .first(conn)
                    .optional()?)
            })
            .await
    }

    async fn set_time_zone(&self, id: UserId, zone: &TimeZone) -> Result<bool, RepoError> {
        let name = zone.name().to_owned();
        self.db
            .write("setting a time zone", move |conn| {
                let n = diesel::update(users::table.find(id.to_string()))
                    .set(users::time_zone.eq(name))
                    .execute(conn)?;
                Ok(n > 0)
            })
            .await
    }
}

/// Every record of the user, oldest first within each kind, each kind in one query. Runs
/// inside [`read_tx`], so all of them come from one snapshot.
fn export(conn: &mut DbConnection, user: &str) -> StoreResult<Option<AccountData>> {
    let Some((row, time_zone)) = users::table
        .find(user)
        .select((UserRow::as_select(), users::time_zone))
        .first::<(UserRow, String)>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    Ok(Some(AccountData {
        user: User::try_from(row)?,
        conversations: conversations(conn, user)?,
        profile: profile_of(conn, user)?,
        revisions: revisions_of(conn, user)?,
        reflection: reflection_of(conn, user)?,
        preferences: preferences_of(conn, user)?,
        checkins: checkins_of(conn, user)?,
        task_mappings: task_mappings_of(conn, user)?,
        activity: activity_of(conn, user)?,
        sessions: sessions_of(conn, user)?,
        api_keys: api_keys_of(conn, user)?,
        email_checkins: email_checkins_of(conn, user)?,
        time_zone,
        webhooks: webhooks_of(conn, user)?,
    }))
}

/// The user's profile, if any.
fn profile_of(conn: &mut DbConnection, user: &str) -> StoreResult<Option<Profile>> {
    Ok(discovery_profile::table
        .filter(discovery_profile::user_id.eq(user))
        .select(ProfileRow::as_select())
        .first(conn)
        .optional()?
        .map(Profile::try_from)
        .transpose()?)
}

/// The profile's revisions, in order. A person has at most one profile, so its numbers order
/// the revisions.
fn revisions_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<Revision>> {
    domain_rows(
        profile_revision::table
            .inner_join(discovery_profile::table)
            .filter(discovery_profile::user_id.eq(user))
            .order(profile_revision::number.asc())
            .select(RevisionRow::as_select())
            .load(conn)?,
    )
}

/// The reflection dialogue, oldest first.
fn reflection_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<ReflectionMessage>> {
    domain_rows(
        reflection_message::table
            .filter(reflection_message::user_id.eq(user))
            .order((
                reflection_message::created_at.asc(),
                reflection_message::id.asc(),
            ))
            .select(ReflectionRow::as_select())
            .load(conn)?,
    )
}

/// The coaching preferences, if stored.
fn preferences_of(conn: &mut DbConnection, user: &str) -> StoreResult<Option<CoachingPreferences>> {
    Ok(coaching_preferences::table
        .find(user)
        .select(PreferencesRow::as_select())
        .first(conn)
        .optional()?
        .map(CoachingPreferences::try_from)
        .transpose()?)
}

/// The coaching check-ins, oldest first.
fn checkins_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<CheckIn>> {
    domain_rows(
        coaching_checkin::table
            .filter(coaching_checkin::user_id.eq(user))
            .order((
                coaching_checkin::created_at.asc(),
                coaching_checkin::id.asc(),
            ))
            .select(CheckInRow::as_select())
            .load(conn)?,
    )
}

/// The task mappings, oldest by when the work happened, the order the listing uses (reversed).
fn task_mappings_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<TaskMapping>> {
    domain_rows(
        task_mapping::table
            .filter(task_mapping::user_id.eq(user))
            .order((task_mapping::occurred_at.asc(), task_mapping::id.asc()))
            .select(TaskMappingRow::as_select())
            .load(conn)?,
    )
}

/// The activity log, oldest first.
fn activity_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<ActivityEntry>> {
    domain_rows(
        activity_log::table
            .filter(activity_log::user_id.eq(user))
            .order((activity_log::at.asc(), activity_log::id.asc()))
            .select(ActivityRow::as_select())
            .load(conn)?,
    )
}

/// The sessions, oldest first.
fn sessions_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<Session>> {
    domain_rows(
        sessions::table
            .filter(sessions::user_id.eq(user))
            .order((sessions::created_at.asc(), sessions::id.asc()))
            .select(SessionRow::as_select())
            .load(conn)?,
    )
}

/// The API keys not revoked, oldest first.
fn api_keys_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<ApiKey>> {
    domain_rows(
        api_keys::table
            .filter(api_keys::user_id.eq(user))
            .filter(api_keys::revoked_at.is_null())
            .order((api_keys::created_at.asc(), api_keys::id.asc()))
            .select(ApiKeyRow::as_select())
            .load(conn)?,
    )
}

/// Whether check-ins are emailed (no when never set).
fn email_checkins_of(conn: &mut DbConnection, user: &str) -> StoreResult<bool> {
    Ok(notification_settings::table
        .find(user)
        .select(notification_settings::email_checkins)
        .first(conn)
        .optional()?
        .unwrap_or(false))
}

/// The webhooks, oldest first.
fn webhooks_of(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<Webhook>> {
    domain_rows(
        webhooks::table
            .filter(webhooks::user_id.eq(user))
            .order((webhooks::created_at.asc(), webhooks::id.asc()))
            .select(WebhookRow::as_select())
            .load(conn)?,
    )
}

/// The user's conversations, oldest first, with their answers (all read in two queries).
fn conversations(
    conn: &mut DbConnection,
    user: &str,
) -> StoreResult<Vec<domain::discovery::Conversation>> {
    use discovery_answer as da;
    use discovery_conversation as dc;
    let rows: Vec<ConversationRow> = dc::table
        .filter(dc::user_id.eq(user))
        .order((dc::created_at.asc(), dc::id.asc()))
        .select(ConversationRow::as_select())
        .load(conn)?;
    let mut answers: HashMap<String, Vec<AnswerRow>> = HashMap::new();
    for answer in da::table
        .inner_join(dc::table)
        .filter(dc::user_id.eq(user))
        .order((da::conversation_id.asc(), da::step.asc()))
        .select(AnswerRow::as_select())
        .load::<AnswerRow>(conn)?
    {
        answers
            .entry(answer.conversation_id.clone())
            .or_default()
            .push(answer);
    }
    Ok(rows
        .into_iter()
        .map(|row| {
            let own = answers.remove(&row.id).unwrap_or_default();
            row.into_domain(own)
        })
        .collect::<anyhow::Result<_>>()?)
}

/// Converts loaded rows into domain values; the first refused value fails the whole read.
fn domain_rows<R, D>(rows: Vec<R>) -> StoreResult<Vec<D>>
where
    D: TryFrom<R, Error = anyhow::Error>,
{
    Ok(rows
        .into_iter()
        .map(D::try_from)
        .collect::<anyhow::Result<_>>()?)
}

/// Requests, requests since, first and last request, task mappings, check-ins, person turns;
/// each a scalar subquery, so NULL stands for none (a count is never NULL in practice).
type Counts = (
    Option<i64>,
    Option<i64>,
    Option<PrimitiveDateTime>,
    Option<PrimitiveDateTime>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// The counts, in two statements: one of scalar subqueries (each answered from an index that
/// starts with user_id), one grouping the activity by source. Runs inside [`read_tx`], so the
/// two agree.
fn stats(conn: &mut DbConnection, user: &str, since: PrimitiveDateTime) -> StoreResult<UserStats> {
    use activity_log as al;
    let mine = || al::table.filter(al::user_id.eq(user));
    let counts: Counts = diesel::select((
        mine().select(count_star()).single_value(),
        mine()
            .filter(al::at.ge(since))
            .select(count_star())
            .single_value(),
        mine().select(min(al::at)).single_value(),
        mine().select(max(al::at)).single_value(),
        task_mapping::table
            .filter(task_mapping::user_id.eq(user))
            .select(count_star())
            .single_value(),
        coaching_checkin::table
            .filter(coaching_checkin::user_id.eq(user))
            .select(count_star())
            .single_value(),
        reflection_message::table
            .filter(reflection_message::user_id.eq(user))
            .filter(reflection_message::author.eq(Author::Person.key()))
            .select(count_star())
            .single_value(),
    ))
    .get_result(conn)?;
    let (total, recent, first, last, mappings, checkins, turns) = counts;
    let by_source: Vec<(Option<String>, i64)> = mine()
        .filter(al::source.is_not_null())
        .group_by(al::source)
        .select((al::source, count_star()))
        .load(conn)?;
    let by_source = by_source
        .into_iter()
        .filter_map(|(source, n)| source.map(|s| (s, n)))
        .map(|(s, n)| {
            Source::parse(&s)
                .map(|source| (source, n))
                .ok_or_else(|| invalid("activity_log.source"))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(UserStats {
        total_requests: total.unwrap_or(0),
        requests_since: recent.unwrap_or(0),
        by_source,
        task_mappings: mappings.unwrap_or(0),
        checkins: checkins.unwrap_or(0),
        reflection_turns: turns.unwrap_or(0),
        first_activity_at: from_db_opt(first),
        last_activity_at: from_db_opt(last),
    })
}
