//! Coaching use cases: preferences (derived, overridden, regenerated) and check-ins (on request,
//! answered once, and the scheduled run that writes the due ones without duplicates).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::account::TimeZone;
use crate::clock::Clock;
use crate::coaching::checkin::{AlreadyResponded, ObservedDays};
use crate::coaching::{
    CheckIn, CheckInOrigin, CoachingPreferences, PreferenceSettings, PreferenceSource,
    compose_checkin, derive_preferences, is_due,
};
use crate::error::RepoError;
use crate::ids::{CheckInId, UserId};
use crate::integration::WorkPattern;
use crate::pagination::{Cursor, Page, PageLimit};
use crate::ports::{
    CheckInCandidate, CheckInRepository, GuardedCheckIn, PreferencesRepository, ProfileRepository,
    TaskMappingRepository,
};
use crate::profile::Profile;
use crate::text::Note;

/// The coaching use cases.
#[derive(Debug, Clone)]
pub struct CoachingService<P, S, C, T, K> {
    profiles: P,
    preferences: S,
    checkins: C,
    tasks: T,
    clock: K,
}

/// Failure of the preference use cases.
#[derive(Debug, thiserror::Error)]
pub enum PreferencesError {
    #[error("no profile")]
    NoProfile,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`CoachingService::create_checkin`].
#[derive(Debug, thiserror::Error)]
pub enum CreateCheckInError {
    #[error("no profile")]
    NoProfile,
    #[error("the profile is not affirmed yet")]
    NotAffirmed,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`CoachingService::respond`].
#[derive(Debug, thiserror::Error)]
pub enum RespondError {
    #[error("no such check-in")]
    NotFound,
    #[error(transparent)]
    AlreadyResponded(#[from] AlreadyResponded),
    #[error(transparent)]
    Repo(RepoError),
}

impl From<RepoError> for RespondError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::Conflict => Self::AlreadyResponded(AlreadyResponded),
            other => Self::Repo(other),
        }
    }
}

/// What a scheduled run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RunReport {
    /// Users with an affirmed profile that were looked at.
    pub considered: u64,
    /// Check-ins written.
    pub created: u64,
}

impl<P, S, C, T, K> CoachingService<P, S, C, T, K>
where
    P: ProfileRepository,
    S: PreferencesRepository,
    C: CheckInRepository,
    T: TaskMappingRepository,
    K: Clock,
{
    pub fn new(profiles: P, preferences: S, checkins: C, tasks: T, clock: K) -> Self {
        Self {
            profiles,
            preferences,
            checkins,
            tasks,
            clock,
        }
    }

    async fn profile(&self, user: UserId) -> Result<Option<Profile>, RepoError> {
        self.profiles.get(user).await
    }

    /// The stored preferences; on first read the derived defaults, stored.
    ///
    /// # Errors
    /// [`PreferencesError::NoProfile`] without a profile.
    pub async fn preferences(&self, user: UserId) -> Result<CoachingPreferences, PreferencesError> {
        let profile = self
            .profile(user)
            .await?
            .ok_or(PreferencesError::NoProfile)?;
        self.preferences_of(&profile).await.map_err(Into::into)
    }

    async fn preferences_of(&self, profile: &Profile) -> Result<CoachingPreferences, RepoError> {
        if let Some(stored) = self.preferences.get(profile.user_id).await? {
            return Ok(stored);
        }
        self.store(
            profile.user_id,
            derive_preferences(profile.triad()),
            PreferenceSource::Derived,
        )
        .await
    }

    async fn store(
        &self,
        user: UserId,
        settings: PreferenceSettings,
        source: PreferenceSource,
    ) -> Result<CoachingPreferences, RepoError> {
        let preferences = CoachingPreferences {
            user_id: user,
            settings,
            source,
            updated_at: self.clock.now(),
        };
        self.preferences.put(&preferences).await?;
        Ok(preferences)
    }

    /// Stores the person's own settings (`source: override`).
    ///
    /// # Errors
    /// [`PreferencesError::NoProfile`] without a profile.
    pub async fn set_preferences(
        &self,
        user: UserId,
        settings: PreferenceSettings,
    ) -> Result<CoachingPreferences, PreferencesError> {
        self.profile(user)
            .await?
            .ok_or(PreferencesError::NoProfile)?;
        Ok(self
            .store(user, settings, PreferenceSource::Override)
            .await?)
    }

    /// Re-derives the settings from the triad (`source: derived`).
    ///
    /// # Errors
    /// [`PreferencesError::NoProfile`] without a profile.
    pub async fn regenerate(&self, user: UserId) -> Result<CoachingPreferences, PreferencesError> {
        let profile = self
            .profile(user)
            .await?
            .ok_or(PreferencesError::NoProfile)?;
        Ok(self
            .store(
                user,
                derive_preferences(profile.triad()),
                PreferenceSource::Derived,
            )
            .await?)
    }

    /// Check-ins, newest first.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn checkins(
        &self,
        user: UserId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Page<CheckIn>, RepoError> {
        self.checkins.list(user, limit, before).await
    }

    /// Writes a check-in now, at the person's request; it observes the last days of the
    /// person's `zone`.
    ///
    /// # Errors
    /// See [`CreateCheckInError`].
    pub async fn create_checkin(
        &self,
        user: UserId,
        zone: &TimeZone,
    ) -> Result<CheckIn, CreateCheckInError> {
        let profile = self
            .profile(user)
            .await?
            .ok_or(CreateCheckInError::NoProfile)?;
        if !profile.locked {
            return Err(CreateCheckInError::NotAffirmed);
        }
        let checkin = self.compose(&profile, CheckInOrigin::Manual, zone).await?;
        self.checkins.insert(&checkin).await?;
        Ok(checkin)
    }

    async fn compose(
        &self,
        profile: &Profile,
        origin: CheckInOrigin,
        zone: &TimeZone,
    ) -> Result<CheckIn, RepoError> {
        let preferences = self.preferences_of(profile).await?;
        let now = self.clock.now();
        let recent = self.recent_pattern(profile.user_id, zone).await?;
        Ok(compose_checkin(
            profile,
            preferences.settings.coaching_style,
            Some(&recent),
            origin,
            now,
        ))
    }

    /// The work pattern of the person's last calendar days in `zone` ([`ObservedDays`]).
    async fn recent_pattern(
        &self,
        user: UserId,
        zone: &TimeZone,
    ) -> Result<WorkPattern, RepoError> {
        let days = ObservedDays::ending_at(self.clock.now(), zone);
        let daily = self.tasks.daily_minutes(user, &days.query, zone).await?;
        Ok(days.pattern(zone, &daily))
    }

    /// Records the person's answer to a check-in, once.
    ///
    /// # Errors
    /// See [`RespondError`].
    pub async fn respond(
        &self,
        user: UserId,
        id: CheckInId,
        still_valid: bool,
        note: Option<Note>,
    ) -> Result<CheckIn, RespondError> {
        let mut checkin = self
            .checkins
            .get(user, id)
            .await?
            .ok_or(RespondError::NotFound)?;
        checkin.respond(still_valid, note, self.clock.now())?;
        self.checkins.save_response(&checkin).await?;
        Ok(checkin)
    }

    /// The scheduled run: writes a check-in for every user whose check-in is due.
    ///
    /// Set-based, a page of [`RUN_PAGE`] affirmed profiles at a time: one read of the page (each
    /// profile with its stored preferences and the time of its latest check-in), one aggregate
    /// of the 14-day minutes of the page's due users, composition in memory, and one write that
    /// inserts the page's check-ins in one transaction. Storage re-checks the cadence inside that
    /// transaction, so concurrent or repeated runs add nothing.
    ///
    /// Preferences are read, never written: a person without stored ones gets the defaults
    /// derived from the triad for this run (the same pure table the API stores on first read).
    ///
    /// # Errors
    /// Storage failures (the pages written before the failure stay written).
    pub async fn run_due(&self) -> Result<RunReport, RepoError> {
        let page =
            PageLimit::new(RUN_PAGE).map_err(|e| RepoError::Unexpected(anyhow::anyhow!(e)))?;
        let mut report = RunReport::default();
        let mut after = None;
        loop {
            let candidates = self.checkins.candidates(after, page).await?;
            let Some(last) = candidates.last() else {
                break;
            };
            after = Some(last.profile.user_id);
            report.considered += u64::try_from(candidates.len()).unwrap_or(u64::MAX);
            report.created += self.run_page(candidates).await?;
        }
        Ok(report)
    }

    /// Composes and writes the due check-ins of one page; returns how many were written. Each
    /// person's observation covers their own calendar days: the minutes are summed in one
    /// aggregate per time zone among the page's due people (one for a page all in one zone).
    async fn run_page(&self, candidates: Vec<CheckInCandidate>) -> Result<u64, RepoError> {
        let now = self.clock.now();
        let due: Vec<(Profile, PreferenceSettings, TimeZone)> = candidates
            .into_iter()
            .filter_map(|c| {
                let settings = c
                    .preferences
                    .map_or_else(|| derive_preferences(c.profile.triad()), |p| p.settings);
                is_due(
                    c.profile.locked,
                    settings.coaching_frequency,
                    c.last_checkin_at,
                    now,
                )
                .then_some((c.profile, settings, c.time_zone))
            })
            .collect();
        if due.is_empty() {
            return Ok(0);
        }
        let mut by_zone: BTreeMap<&str, (&TimeZone, Vec<UserId>)> = BTreeMap::new();
        for (profile, _, zone) in &due {
            by_zone
                .entry(zone.name())
                .or_insert_with(|| (zone, Vec::new()))
                .1
                .push(profile.user_id);
        }
        let mut daily = BTreeMap::new();
        for (zone, users) in by_zone.into_values() {
            let days = ObservedDays::ending_at(now, zone);
            daily.extend(
                self.tasks
                    .daily_minutes_of(&users, &days.query, zone)
                    .await?,
            );
        }
        let batch: Vec<GuardedCheckIn> = due
            .iter()
            .map(|(profile, settings, zone)| {
                let sums = daily.remove(&profile.user_id).unwrap_or_default();
                let recent = ObservedDays::ending_at(now, zone).pattern(zone, &sums);
                GuardedCheckIn {
                    checkin: compose_checkin(
                        profile,
                        settings.coaching_style,
                        Some(&recent),
                        CheckInOrigin::Batch,
                        now,
                    ),
                    since: now - settings.coaching_frequency.cadence(),
                }
            })
            .collect();
        self.checkins.insert_unless_recent_batch(&batch).await
    }
}

/// How many affirmed profiles the run reads, composes and writes at a time.
pub const RUN_PAGE: i64 = 500;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FixedClock;
    use crate::coaching::checkin::OBSERVATION_DAYS;
    use crate::coaching::{CoachingFrequency, CoachingStyle};
    use crate::foundation::Foundation;
    use crate::integration::{DailyMinutes, FoundationMinutes};
    use crate::ports::{
        MockCheckInRepository, MockPreferencesRepository, MockProfileRepository,
        MockTaskMappingRepository,
    };
    use crate::profile::{ProfileEvent, Triad};
    use crate::services::fixtures::{
        NOW, block_on, clock, extraction, locked_profile, unlocked_profile,
    };
    use std::sync::{Arc, Mutex};
    use time::Duration;
    use time::macros::{date, datetime};

    type Service = CoachingService<
        MockProfileRepository,
        MockPreferencesRepository,
        MockCheckInRepository,
        MockTaskMappingRepository,
        FixedClock,
    >;

    struct Mocks {
        profiles: MockProfileRepository,
        preferences: MockPreferencesRepository,
        checkins: MockCheckInRepository,
        tasks: MockTaskMappingRepository,
    }

    impl Mocks {
        fn new(profile: Option<Profile>) -> Self {
            let mut profiles = MockProfileRepository::new();
            profiles
                .expect_get()
                .returning(move |_| Ok(profile.clone()));
            let mut tasks = MockTaskMappingRepository::new();
            tasks
                .expect_daily_minutes()
                .returning(|_, _, _| Ok(Vec::new()));
            Self {
                profiles,
                preferences: MockPreferencesRepository::new(),
                checkins: MockCheckInRepository::new(),
                tasks,
            }
        }

        fn service(self) -> Service {
            CoachingService::new(
                self.profiles,
                self.preferences,
                self.checkins,
                self.tasks,
                clock(),
            )
        }
    }

    fn stored(user: UserId, frequency: CoachingFrequency) -> CoachingPreferences {
        let mut settings = derive_preferences(Triad::Gut);
        settings.coaching_frequency = frequency;
        CoachingPreferences {
            user_id: user,
            settings,
            source: PreferenceSource::Override,
            updated_at: NOW,
        }
    }

    #[test]
    fn the_first_read_stores_the_derived_defaults() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(unlocked_profile(user)));
        m.preferences.expect_get().returning(|_| Ok(None));
        m.preferences
            .expect_put()
            .withf(|p| {
                p.source == PreferenceSource::Derived
                    && p.settings == derive_preferences(Triad::Gut)
            })
            .times(1)
            .returning(|_| Ok(()));
        let p = block_on(m.service().preferences(user)).unwrap();
        assert_eq!(p.settings.coaching_style, CoachingStyle::Direct);
    }

    #[test]
    fn preferences_need_a_profile() {
        let mut m = Mocks::new(None);
        m.preferences.expect_put().never();
        assert!(matches!(
            block_on(m.service().preferences(UserId::new())),
            Err(PreferencesError::NoProfile)
        ));
    }

    #[test]
    fn an_override_is_stored_as_such_and_regeneration_derives_again() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(unlocked_profile(user)));
        let mut seq = mockall::Sequence::new();
        m.preferences
            .expect_put()
            .withf(|p| {
                p.source == PreferenceSource::Override
                    && p.settings.coaching_style == CoachingStyle::Warm
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        m.preferences
            .expect_put()
            .withf(|p| {
                p.source == PreferenceSource::Derived
                    && p.settings.coaching_style == CoachingStyle::Direct
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        let service = m.service();
        let mut settings = derive_preferences(Triad::Gut);
        settings.coaching_style = CoachingStyle::Warm;
        assert_eq!(
            block_on(service.set_preferences(user, settings))
                .unwrap()
                .source,
            PreferenceSource::Override
        );
        assert_eq!(
            block_on(service.regenerate(user)).unwrap().source,
            PreferenceSource::Derived
        );
    }

    #[test]
    fn a_check_in_needs_an_affirmed_profile() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(unlocked_profile(user)));
        m.checkins.expect_insert().never();
        assert!(matches!(
            block_on(m.service().create_checkin(user, &TimeZone::utc())),
            Err(CreateCheckInError::NotAffirmed)
        ));
    }

    #[test]
    fn a_manual_check_in_quotes_the_goal_and_observes_logged_time() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(locked_profile(user)));
        m.preferences
            .expect_get()
            .returning(move |_| Ok(Some(stored(user, CoachingFrequency::Weekly))));
        m.tasks = MockTaskMappingRepository::new();
        // 19:00 on 22 November in Tokyo: the observed days are 9 to 22 November there, and
        // storage is asked from a day before their start (8 November, 00:00 in Tokyo).
        m.tasks
            .expect_daily_minutes()
            .withf(|_, w, z| {
                z.name() == "Asia/Tokyo" && w.from == datetime!(2026-11-07 15:00 UTC) && w.to == NOW
            })
            .returning(|_, _, _| {
                let day = |date, minutes| DailyMinutes {
                    date,
                    minutes: FoundationMinutes::from(minutes),
                    unmapped: 0,
                };
                // The 8th is not one of the observed days: its ten hours of love are left out.
                Ok(vec![
                    day(date!(2026 - 11 - 08), [600, 0, 0, 0, 0, 0]),
                    day(date!(2026 - 11 - 09), [0, 0, 0, 120, 0, 0]),
                ])
            });
        m.checkins.expect_insert().times(1).returning(|_| Ok(()));
        let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
        let c = block_on(m.service().create_checkin(user, &tokyo)).unwrap();
        assert_eq!(c.quoted_goals, ["Open the workshop on Saturdays."]);
        assert_eq!(c.origin, CheckInOrigin::Manual);
        let observation = c.observation.unwrap();
        assert!(
            observation
                .starts_with("In the last 14 days you logged 2 h, all of it classified. All the classified time went to Vocation."),
            "{observation}"
        );
    }

    #[test]
    fn a_second_response_is_refused() {
        let user = UserId::new();
        let profile = locked_profile(user);
        let mut answered = compose_checkin(
            &profile,
            CoachingStyle::Warm,
            None,
            CheckInOrigin::Manual,
            NOW,
        );
        answered.respond(true, None, NOW).unwrap();
        let id = answered.id;
        let mut m = Mocks::new(Some(profile));
        m.checkins
            .expect_get()
            .returning(move |_, _| Ok(Some(answered.clone())));
        m.checkins.expect_save_response().never();
        assert!(matches!(
            block_on(m.service().respond(user, id, false, None)),
            Err(RespondError::AlreadyResponded(_))
        ));
    }

    #[test]
    fn a_response_racing_another_is_refused_by_storage() {
        let user = UserId::new();
        let profile = locked_profile(user);
        let open = compose_checkin(
            &profile,
            CoachingStyle::Warm,
            None,
            CheckInOrigin::Manual,
            NOW,
        );
        let id = open.id;
        let mut m = Mocks::new(Some(profile));
        m.checkins
            .expect_get()
            .returning(move |_, _| Ok(Some(open.clone())));
        m.checkins
            .expect_save_response()
            .returning(|_| Err(RepoError::Conflict));
        assert!(matches!(
            block_on(m.service().respond(user, id, false, None)),
            Err(RespondError::AlreadyResponded(_))
        ));
    }

    #[test]
    fn someone_elses_check_in_is_not_found() {
        let mut m = Mocks::new(None);
        m.checkins.expect_get().returning(|_, _| Ok(None));
        assert!(matches!(
            block_on(
                m.service()
                    .respond(UserId::new(), CheckInId::new(), true, None)
            ),
            Err(RespondError::NotFound)
        ));
    }

    /// One person in a run: their profile, stored preferences and latest check-in, and what
    /// the run must do about them.
    struct Row {
        name: &'static str,
        locked: bool,
        /// Enneagram type: 9 is gut (derived weekly), 5 is head (derived biweekly).
        type_: i64,
        stored: Option<CoachingFrequency>,
        last_days_ago: Option<Duration>,
        logged_minutes: i64,
        due: bool,
    }

    fn rows() -> Vec<Row> {
        let mut rows = stored_frequency_rows();
        rows.extend(other_rows());
        rows
    }

    /// A locked gut type (derived weekly) with the stored frequency and last check-in given.
    fn row(
        name: &'static str,
        stored: Option<CoachingFrequency>,
        last_days_ago: Option<Duration>,
        due: bool,
    ) -> Row {
        Row {
            name,
            locked: true,
            type_: 9,
            stored,
            last_days_ago,
            logged_minutes: 0,
            due,
        }
    }

    /// Each stored frequency at its boundary: due on the day, not a second before.
    fn stored_frequency_rows() -> Vec<Row> {
        let d = Duration::days;
        let just_inside = |days| Some(d(days) - Duration::seconds(1));
        use CoachingFrequency::{Biweekly, Monthly, Weekly};
        vec![
            row("weekly, never checked in", Some(Weekly), None, true),
            row("weekly, 7 days ago", Some(Weekly), Some(d(7)), true),
            row(
                "weekly, just inside 7 days",
                Some(Weekly),
                just_inside(7),
                false,
            ),
            row("biweekly, 14 days ago", Some(Biweekly), Some(d(14)), true),
            row("biweekly, 7 days ago", Some(Biweekly), Some(d(7)), false),
            row(
                "biweekly, just inside 14 days",
                Some(Biweekly),
                just_inside(14),
                false,
            ),
            row("monthly, 30 days ago", Some(Monthly), Some(d(30)), true),
            row("monthly, 14 days ago", Some(Monthly), Some(d(14)), false),
            row(
                "monthly, just inside 30 days",
                Some(Monthly),
                just_inside(30),
                false,
            ),
        ]
    }

    /// Derived frequencies, an unlocked profile, and logged work.
    fn other_rows() -> Vec<Row> {
        let d = Duration::days;
        use CoachingFrequency::Weekly;
        vec![
            row("derived (gut: weekly), 7 days ago", None, Some(d(7)), true),
            Row {
                type_: 5,
                ..row(
                    "derived (head: biweekly), 7 days ago",
                    None,
                    Some(d(7)),
                    false,
                )
            },
            Row {
                type_: 5,
                ..row(
                    "derived (head: biweekly), 14 days ago",
                    None,
                    Some(d(14)),
                    true,
                )
            },
            Row {
                locked: false,
                ..row("unlocked, never checked in", Some(Weekly), None, false)
            },
            Row {
                logged_minutes: 90,
                ..row(
                    "weekly, due, with logged work",
                    Some(Weekly),
                    Some(d(8)),
                    true,
                )
            },
            Row {
                logged_minutes: 90,
                ..row(
                    "weekly, not due, with logged work",
                    Some(Weekly),
                    Some(d(1)),
                    false,
                )
            },
        ]
    }

    fn candidate(row: &Row) -> CheckInCandidate {
        let user = UserId::new();
        let mut profile = Profile::extracted(user, extraction(row.type_), NOW).profile;
        if row.locked {
            profile = profile.apply(ProfileEvent::Affirm, NOW).unwrap().profile;
        }
        CheckInCandidate {
            profile,
            preferences: row.stored.map(|f| stored(user, f)),
            last_checkin_at: row.last_days_ago.map(|ago| NOW - ago),
            time_zone: TimeZone::utc(),
        }
    }

    /// Mocks for a run over `pages` (each a page of candidates, in order), where the storage
    /// reports `inserted(batch)` check-ins written and `written` collects every batch.
    fn run_mocks(
        pages: Vec<Vec<CheckInCandidate>>,
        minutes: BTreeMap<UserId, i64>,
        written: Arc<Mutex<Vec<GuardedCheckIn>>>,
        inserted: fn(&[GuardedCheckIn]) -> u64,
    ) -> Mocks {
        let mut m = Mocks::new(None);
        m.profiles.expect_locked_users().never();
        m.preferences.expect_put().never();
        m.checkins.expect_insert_unless_recent().never();
        let mut seq = mockall::Sequence::new();
        let mut after = None;
        for page in pages.into_iter().chain([Vec::new()]) {
            let next = page.last().map(|c| c.profile.user_id);
            m.checkins
                .expect_candidates()
                .withf(move |a, limit| *a == after && i64::from(limit.get()) == RUN_PAGE)
                .times(1)
                .in_sequence(&mut seq)
                .returning(move |_, _| Ok(page.clone()));
            after = next;
        }
        m.tasks
            .expect_daily_minutes_of()
            .withf(|_, w, z| w.days == OBSERVATION_DAYS + 1 && w.to == NOW && z.name() == "UTC")
            .returning(move |users, _, _| {
                Ok(users
                    .iter()
                    .filter_map(|u| minutes.get(u).map(|m| (*u, *m)))
                    .map(|(u, m)| {
                        let day = DailyMinutes {
                            date: NOW.date(),
                            minutes: FoundationMinutes::from([0, 0, 0, m, 0, 0]),
                            unmapped: 0,
                        };
                        (u, vec![day])
                    })
                    .collect())
            });
        m.checkins
            .expect_insert_unless_recent_batch()
            .returning(move |batch| {
                written.lock().unwrap().extend(batch.iter().cloned());
                Ok(inserted(batch))
            });
        m
    }

    fn all_inserted(batch: &[GuardedCheckIn]) -> u64 {
        batch.len() as u64
    }

    #[test]
    fn the_run_writes_exactly_the_due_check_ins() {
        let rows = rows();
        let candidates: Vec<CheckInCandidate> = rows.iter().map(candidate).collect();
        let minutes = rows
            .iter()
            .zip(&candidates)
            .filter(|(r, _)| r.logged_minutes > 0)
            .map(|(r, c)| (c.profile.user_id, r.logged_minutes))
            .collect();
        // Two pages, as the keyset hands them out.
        let pages = vec![candidates[..5].to_vec(), candidates[5..].to_vec()];
        let written = Arc::new(Mutex::new(Vec::new()));
        let m = run_mocks(pages, minutes, written.clone(), all_inserted);
        let report = block_on(m.service().run_due()).unwrap();

        let written = written.lock().unwrap();
        for (row, c) in rows.iter().zip(&candidates) {
            let user = c.profile.user_id;
            let mine: Vec<&GuardedCheckIn> = written
                .iter()
                .filter(|g| g.checkin.user_id == user)
                .collect();
            if !row.due {
                assert!(mine.is_empty(), "{}: written although not due", row.name);
                continue;
            }
            let [g] = mine.as_slice() else {
                panic!("{}: expected one check-in, got {}", row.name, mine.len());
            };
            let frequency = row.stored.unwrap_or(if row.type_ == 5 {
                CoachingFrequency::Biweekly
            } else {
                CoachingFrequency::Weekly
            });
            assert_eq!(g.since, NOW - frequency.cadence(), "{}: guard", row.name);
            assert_eq!(g.checkin.origin, CheckInOrigin::Batch, "{}", row.name);
            assert_eq!(g.checkin.created_at, NOW, "{}", row.name);
            assert_eq!(
                g.checkin.quoted_goals,
                ["Open the workshop on Saturdays."],
                "{}",
                row.name
            );
            match &g.checkin.observation {
                Some(o) if row.logged_minutes > 0 => {
                    assert!(
                        o.contains(Foundation::Vocation.title()),
                        "{}: {o}",
                        row.name
                    );
                }
                None if row.logged_minutes == 0 => {}
                other => panic!("{}: observation {other:?}", row.name),
            }
        }
        let due = rows.iter().filter(|r| r.due).count() as u64;
        assert_eq!(
            report,
            RunReport {
                considered: rows.len() as u64,
                created: due
            }
        );
    }

    #[test]
    fn only_the_due_users_are_summed_and_a_page_with_none_due_writes_nothing() {
        let rows = rows();
        let first: Vec<CheckInCandidate> = rows.iter().map(candidate).collect();
        let idle: Vec<CheckInCandidate> = rows.iter().filter(|r| !r.due).map(candidate).collect();
        let due_users: Vec<UserId> = rows
            .iter()
            .zip(&first)
            .filter(|(r, _)| r.due)
            .map(|(_, c)| c.profile.user_id)
            .collect();
        let considered = (first.len() + idle.len()) as u64;
        let mut m = Mocks::new(None);
        let mut seq = mockall::Sequence::new();
        let after_first = first.last().map(|c| c.profile.user_id);
        let after_idle = idle.last().map(|c| c.profile.user_id);
        m.checkins
            .expect_candidates()
            .withf(|a, _| a.is_none())
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_, _| Ok(first.clone()));
        m.checkins
            .expect_candidates()
            .withf(move |a, _| *a == after_first)
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_, _| Ok(idle.clone()));
        m.checkins
            .expect_candidates()
            .withf(move |a, _| *a == after_idle)
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(Vec::new()));
        // One aggregate and one write, both for the first page only.
        m.tasks
            .expect_daily_minutes_of()
            .withf(move |users, _, _| users == due_users.as_slice())
            .times(1)
            .returning(|_, _, _| Ok(BTreeMap::new()));
        writes_one_batch(&mut m);
        let report = block_on(m.service().run_due()).unwrap();
        assert_eq!(
            report,
            RunReport {
                considered,
                created: rows.iter().filter(|r| r.due).count() as u64,
            }
        );
    }

    #[test]
    fn a_run_that_loses_the_race_to_another_host_counts_only_what_storage_wrote() {
        let rows = rows();
        let candidates: Vec<CheckInCandidate> = rows.iter().map(candidate).collect();
        let written = Arc::new(Mutex::new(Vec::new()));
        // Another host wrote all but one of this page's check-ins first.
        let m = run_mocks(vec![candidates], BTreeMap::new(), written.clone(), |_| 1);
        let report = block_on(m.service().run_due()).unwrap();
        assert_eq!(
            report,
            RunReport {
                considered: rows.len() as u64,
                created: 1
            }
        );
        assert_eq!(
            written.lock().unwrap().len(),
            rows.iter().filter(|r| r.due).count()
        );
    }

    #[test]
    fn a_storage_failure_stops_the_run() {
        let rows = rows();
        let candidates: Vec<CheckInCandidate> = rows.iter().map(candidate).collect();
        let mut m = Mocks::new(None);
        m.checkins
            .expect_candidates()
            .times(1)
            .returning(move |_, _| Ok(candidates.clone()));
        m.tasks
            .expect_daily_minutes_of()
            .returning(|_, _, _| Ok(BTreeMap::new()));
        m.checkins
            .expect_insert_unless_recent_batch()
            .times(1)
            .returning(|_| Err(RepoError::Unavailable(anyhow::anyhow!("down"))));
        assert!(matches!(
            block_on(m.service().run_due()),
            Err(RepoError::Unavailable(_))
        ));
    }

    #[test]
    fn the_run_sums_each_time_zone_over_its_own_days_in_one_aggregate() {
        let rows = rows();
        let due = |name: &str| rows.iter().find(|r| r.name == name).unwrap();
        let mut tokyo = candidate(due("weekly, 7 days ago"));
        tokyo.time_zone = TimeZone::parse("Asia/Tokyo").unwrap();
        let utc = candidate(due("biweekly, 14 days ago"));
        let mut also_tokyo = candidate(due("monthly, 30 days ago"));
        also_tokyo.time_zone = tokyo.time_zone.clone();
        let tokyo_users = vec![tokyo.profile.user_id, also_tokyo.profile.user_id];
        let utc_user = utc.profile.user_id;
        let mut m = Mocks::new(None);
        let page = vec![tokyo, utc, also_tokyo];
        let mut seq = mockall::Sequence::new();
        m.checkins
            .expect_candidates()
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_, _| Ok(page.clone()));
        m.checkins
            .expect_candidates()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(Vec::new()));
        // Each zone's own midnight, a day before its first observed day (9 November).
        m.tasks
            .expect_daily_minutes_of()
            .withf(move |users, w, z| {
                z.name() == "Asia/Tokyo"
                    && users == tokyo_users.as_slice()
                    && w.from == datetime!(2026-11-07 15:00 UTC)
            })
            .times(1)
            .returning(|_, _, _| Ok(BTreeMap::new()));
        m.tasks
            .expect_daily_minutes_of()
            .withf(move |users, w, z| {
                z.name() == "UTC"
                    && users == [utc_user]
                    && w.from == datetime!(2026-11-08 00:00 UTC)
            })
            .times(1)
            .returning(|_, _, _| Ok(BTreeMap::new()));
        writes_one_batch(&mut m);
        assert_eq!(block_on(m.service().run_due()).unwrap().created, 3);
    }

    /// Storage writes every check-in of the one batch the run gives it.
    fn writes_one_batch(m: &mut Mocks) {
        m.checkins
            .expect_insert_unless_recent_batch()
            .times(1)
            .returning(|batch| Ok(batch.len() as u64));
    }
}
