//! The diesel schema shared by both backends.
//!
//! Written by hand to match the PostgreSQL migrations (`migrations/postgres`) exactly, column
//! order included, because `diesel print-schema` is not available offline. The SQLite tree
//! yields the same tables and columns; the `schema` tests compare all three (this file, an empty
//! SQLite file and an empty PostgreSQL database after the whole chain) and fail on any drift.
//! Ids are UUID strings and timestamps are UTC `TIMESTAMP`s on both backends, since the shared
//! `MultiBackend` has neither a Uuid nor a zoned timestamp type.

diesel::table! {
    activity_log (at, id) {
        id -> Text,
        user_id -> Nullable<Text>,
        at -> Timestamp,
        action -> Text,
        method -> Text,
        path -> Text,
        status -> Integer,
        source -> Nullable<Text>,
        duration_ms -> BigInt,
        request_id -> Text,
        ip -> Nullable<Text>,
        user_agent -> Nullable<Text>,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Text,
        user_id -> Text,
        name -> Text,
        prefix -> Text,
        key_hash -> Text,
        created_at -> Timestamp,
        last_used_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
        scopes -> Text,
        expires_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    coaching_checkin (id) {
        id -> Text,
        user_id -> Text,
        message -> Text,
        quoted_goals -> Text,
        observation -> Nullable<Text>,
        origin -> Text,
        created_at -> Timestamp,
        responded_at -> Nullable<Timestamp>,
        still_valid -> Nullable<Bool>,
        response_note -> Nullable<Text>,
    }
}

diesel::table! {
    coaching_preferences (user_id) {
        user_id -> Text,
        coaching_frequency -> Text,
        coaching_style -> Text,
        misalignment_threshold -> Double,
        friction_tolerance -> Text,
        prefer_questions_over_directives -> Bool,
        time_of_day_preference -> Text,
        source -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    deliveries (id) {
        id -> Text,
        event_id -> Text,
        user_id -> Text,
        channel -> Text,
        webhook_id -> Nullable<Text>,
        status -> Text,
        attempt -> Integer,
        response_status -> Nullable<Integer>,
        error -> Nullable<Text>,
        created_at -> Timestamp,
        last_attempt_at -> Nullable<Timestamp>,
        next_attempt_at -> Nullable<Timestamp>,
        lease_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    discovery_answer (conversation_id, step) {
        conversation_id -> Text,
        step -> Integer,
        text -> Text,
        answered_at -> Timestamp,
    }
}

diesel::table! {
    discovery_conversation (id) {
        id -> Text,
        user_id -> Text,
        created_at -> Timestamp,
        completed_at -> Nullable<Timestamp>,
        near_term_goal_raw -> Nullable<Text>,
        long_term_goal_raw -> Nullable<Text>,
    }
}

diesel::table! {
    discovery_profile (id) {
        id -> Text,
        user_id -> Text,
        enneagram_type -> Integer,
        love_summary -> Text,
        strength_summary -> Text,
        mission_summary -> Text,
        vocation_summary -> Text,
        overlap_narrative -> Text,
        locked -> Bool,
        affirmed_at -> Nullable<Timestamp>,
        version -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        near_term_goal_summary -> Nullable<Text>,
        long_term_goal_summary -> Nullable<Text>,
        sources -> Text,
    }
}

diesel::table! {
    mapping_rules (id) {
        id -> Text,
        user_id -> Text,
        position -> Integer,
        match_kind -> Text,
        pattern -> Text,
        foundation -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    notification_settings (user_id) {
        user_id -> Text,
        email_checkins -> Bool,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    outbox_events (id) {
        id -> Text,
        user_id -> Text,
        event_type -> Text,
        payload -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    profile_revision (id) {
        id -> Text,
        profile_id -> Text,
        number -> Integer,
        origin -> Text,
        snapshot -> Text,
        note -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    reflection_message (id) {
        id -> Text,
        user_id -> Text,
        author -> Text,
        text -> Text,
        created_at -> Timestamp,
        engine -> Nullable<Text>,
    }
}

diesel::table! {
    refresh_tokens (id) {
        id -> Text,
        session_id -> Text,
        token_hash -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    sessions (id) {
        id -> Text,
        user_id -> Text,
        created_at -> Timestamp,
        last_used_at -> Timestamp,
        expires_at -> Timestamp,
        user_agent -> Nullable<Text>,
        ip -> Nullable<Text>,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    task_mapping (user_id, external_task_id) {
        id -> Text,
        user_id -> Text,
        external_task_id -> Text,
        task_label -> Nullable<Text>,
        foundation -> Nullable<Text>,
        minutes -> Integer,
        occurred_at -> Timestamp,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        tags -> Text,
        mapped_by -> Nullable<Text>,
        match_label -> Nullable<Text>,
        match_tags -> Nullable<Text>,
        match_id -> Nullable<Text>,
    }
}

diesel::table! {
    reclassification (user_id) {
        user_id -> Text,
        generation -> BigInt,
        scope -> Nullable<Text>,
        resume_after -> Nullable<Text>,
        done -> BigInt,
        total -> Nullable<BigInt>,
    }
}

diesel::table! {
    users (id) {
        id -> Text,
        email -> Text,
        name -> Nullable<Text>,
        created_at -> Timestamp,
        last_login_at -> Nullable<Timestamp>,
        oidc_issuer -> Text,
        oidc_subject -> Text,
        time_zone -> Text,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Text,
        user_id -> Text,
        url -> Text,
        events -> Text,
        secret -> Text,
        created_at -> Timestamp,
        disabled_at -> Nullable<Timestamp>,
        failures_in_a_row -> Integer,
    }
}

diesel::joinable!(activity_log -> users (user_id));
diesel::joinable!(api_keys -> users (user_id));
diesel::joinable!(coaching_checkin -> users (user_id));
diesel::joinable!(coaching_preferences -> users (user_id));
diesel::joinable!(deliveries -> outbox_events (event_id));
diesel::joinable!(deliveries -> users (user_id));
diesel::joinable!(deliveries -> webhooks (webhook_id));
diesel::joinable!(discovery_answer -> discovery_conversation (conversation_id));
diesel::joinable!(discovery_conversation -> users (user_id));
diesel::joinable!(discovery_profile -> users (user_id));
diesel::joinable!(mapping_rules -> users (user_id));
diesel::joinable!(notification_settings -> users (user_id));
diesel::joinable!(outbox_events -> users (user_id));
diesel::joinable!(profile_revision -> discovery_profile (profile_id));
diesel::joinable!(reclassification -> users (user_id));
diesel::joinable!(reflection_message -> users (user_id));
diesel::joinable!(refresh_tokens -> sessions (session_id));
diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(task_mapping -> users (user_id));
diesel::joinable!(webhooks -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    activity_log,
    api_keys,
    coaching_checkin,
    coaching_preferences,
    deliveries,
    discovery_answer,
    discovery_conversation,
    discovery_profile,
    mapping_rules,
    notification_settings,
    outbox_events,
    profile_revision,
    reclassification,
    reflection_message,
    refresh_tokens,
    sessions,
    task_mapping,
    users,
    webhooks,
);
