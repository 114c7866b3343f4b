-- T3 Code (pingdotgg/t3code) SQLite schema, V1 orchestration, migrations 001-036.
-- Derived by applying the DDL in apps/server/src/persistence/Migrations/*.ts at upstream main commit
-- 7b38fb5c6b0fb46a7dadaf33e1739726be3dc104 (2026-08-04; read from the fork snapshot 0bkevin/t3code) to an empty
-- SQLite DB and dumping sqlite_master. Not a copy of any file; the effect_sql_migrations ledger table created by
-- the Effect migrator is not included. DB file: ~/.t3/userdata/state.sqlite (dev: ~/.t3/dev/state.sqlite).

CREATE TABLE auth_pairing_links (
      id TEXT PRIMARY KEY,
      credential TEXT NOT NULL UNIQUE,
      method TEXT NOT NULL,
      scopes TEXT NOT NULL,
      subject TEXT NOT NULL,
      label TEXT,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      consumed_at TEXT,
      revoked_at TEXT
    , proof_key_thumbprint TEXT);

CREATE TABLE auth_sessions (
      session_id TEXT PRIMARY KEY,
      subject TEXT NOT NULL,
      scopes TEXT NOT NULL,
      method TEXT NOT NULL,
      client_label TEXT,
      client_ip_address TEXT,
      client_user_agent TEXT,
      client_device_type TEXT NOT NULL DEFAULT 'unknown',
      client_os TEXT,
      client_browser TEXT,
      issued_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      last_connected_at TEXT,
      revoked_at TEXT
    );

CREATE TABLE checkpoint_diff_blobs (
      thread_id TEXT NOT NULL,
      from_turn_count INTEGER NOT NULL,
      to_turn_count INTEGER NOT NULL,
      diff TEXT NOT NULL,
      created_at TEXT NOT NULL,
      UNIQUE (thread_id, from_turn_count, to_turn_count)
    );

CREATE TABLE orchestration_command_receipts (
      command_id TEXT PRIMARY KEY,
      aggregate_kind TEXT NOT NULL,
      aggregate_id TEXT NOT NULL,
      accepted_at TEXT NOT NULL,
      result_sequence INTEGER NOT NULL,
      status TEXT NOT NULL,
      error TEXT
    );

CREATE TABLE orchestration_events (
      sequence INTEGER PRIMARY KEY AUTOINCREMENT,
      event_id TEXT NOT NULL UNIQUE,
      aggregate_kind TEXT NOT NULL,
      stream_id TEXT NOT NULL,
      stream_version INTEGER NOT NULL,
      event_type TEXT NOT NULL,
      occurred_at TEXT NOT NULL,
      command_id TEXT,
      causation_event_id TEXT,
      correlation_id TEXT,
      actor_kind TEXT NOT NULL,
      payload_json TEXT NOT NULL,
      metadata_json TEXT NOT NULL
    );

CREATE TABLE projection_pending_approvals (
      request_id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      turn_id TEXT,
      status TEXT NOT NULL,
      decision TEXT,
      created_at TEXT NOT NULL,
      resolved_at TEXT
    );

CREATE TABLE projection_projects (
      project_id TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      workspace_root TEXT NOT NULL,
      scripts_json TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      deleted_at TEXT
    , default_model_selection_json TEXT);

CREATE TABLE projection_state (
      projector TEXT PRIMARY KEY,
      last_applied_sequence INTEGER NOT NULL,
      updated_at TEXT NOT NULL
    );

CREATE TABLE projection_thread_activities (
      activity_id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      turn_id TEXT,
      tone TEXT NOT NULL,
      kind TEXT NOT NULL,
      summary TEXT NOT NULL,
      payload_json TEXT NOT NULL,
      created_at TEXT NOT NULL
    , sequence INTEGER);

CREATE TABLE projection_thread_messages (
      message_id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      turn_id TEXT,
      role TEXT NOT NULL,
      text TEXT NOT NULL,
      is_streaming INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    , attachments_json TEXT);

CREATE TABLE projection_thread_proposed_plans (
      plan_id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      turn_id TEXT,
      plan_markdown TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    , implemented_at TEXT, implementation_thread_id TEXT);

CREATE TABLE projection_thread_sessions (
      thread_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      provider_name TEXT,
      provider_session_id TEXT,
      provider_thread_id TEXT,
      active_turn_id TEXT,
      last_error TEXT,
      updated_at TEXT NOT NULL
    , runtime_mode TEXT NOT NULL DEFAULT 'full-access', provider_instance_id TEXT);

CREATE TABLE projection_threads (
      thread_id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL,
      title TEXT NOT NULL,
      branch TEXT,
      worktree_path TEXT,
      latest_turn_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      deleted_at TEXT
    , runtime_mode TEXT NOT NULL DEFAULT 'full-access', interaction_mode TEXT NOT NULL DEFAULT 'default', model_selection_json TEXT, archived_at TEXT, latest_user_message_at TEXT, pending_approval_count INTEGER NOT NULL DEFAULT 0, pending_user_input_count INTEGER NOT NULL DEFAULT 0, has_actionable_proposed_plan INTEGER NOT NULL DEFAULT 0, settled_override TEXT, settled_at TEXT, snoozed_until TEXT, snoozed_at TEXT, title_regeneration_request_id TEXT, title_regeneration_started_at TEXT, pinned_at TEXT);

CREATE TABLE projection_turns (
      row_id INTEGER PRIMARY KEY AUTOINCREMENT,
      thread_id TEXT NOT NULL,
      turn_id TEXT,
      pending_message_id TEXT,
      assistant_message_id TEXT,
      state TEXT NOT NULL,
      requested_at TEXT NOT NULL,
      started_at TEXT,
      completed_at TEXT,
      checkpoint_turn_count INTEGER,
      checkpoint_ref TEXT,
      checkpoint_status TEXT,
      checkpoint_files_json TEXT NOT NULL, source_proposed_plan_thread_id TEXT, source_proposed_plan_id TEXT,
      UNIQUE (thread_id, turn_id),
      UNIQUE (thread_id, checkpoint_turn_count)
    );

CREATE TABLE provider_session_runtime (
      thread_id TEXT PRIMARY KEY,
      provider_name TEXT NOT NULL,
      adapter_key TEXT NOT NULL,
      runtime_mode TEXT NOT NULL DEFAULT 'full-access',
      status TEXT NOT NULL,
      last_seen_at TEXT NOT NULL,
      resume_cursor_json TEXT,
      runtime_payload_json TEXT
    , provider_instance_id TEXT);

CREATE INDEX idx_auth_pairing_links_active
    ON auth_pairing_links(revoked_at, consumed_at, expires_at);

CREATE INDEX idx_auth_sessions_active
    ON auth_sessions(revoked_at, expires_at, issued_at);

CREATE INDEX idx_checkpoint_diff_blobs_thread_to_turn
    ON checkpoint_diff_blobs(thread_id, to_turn_count);

CREATE INDEX idx_orch_command_receipts_aggregate
    ON orchestration_command_receipts(aggregate_kind, aggregate_id);

CREATE INDEX idx_orch_command_receipts_sequence
    ON orchestration_command_receipts(result_sequence);

CREATE INDEX idx_orch_events_command_id
    ON orchestration_events(command_id);

CREATE INDEX idx_orch_events_correlation_id
    ON orchestration_events(correlation_id);

CREATE INDEX idx_orch_events_stream_sequence
    ON orchestration_events(aggregate_kind, stream_id, sequence);

CREATE UNIQUE INDEX idx_orch_events_stream_version
    ON orchestration_events(aggregate_kind, stream_id, stream_version);

CREATE INDEX idx_projection_pending_approvals_thread_status
    ON projection_pending_approvals(thread_id, status);

CREATE INDEX idx_projection_projects_updated_at
    ON projection_projects(updated_at);

CREATE INDEX idx_projection_projects_workspace_root_deleted_at
    ON projection_projects(workspace_root, deleted_at);

CREATE INDEX idx_projection_thread_activities_thread_created
    ON projection_thread_activities(thread_id, created_at);

CREATE INDEX idx_projection_thread_activities_thread_sequence
    ON projection_thread_activities(thread_id, sequence);

CREATE INDEX idx_projection_thread_activities_thread_sequence_created_id
    ON projection_thread_activities(thread_id, sequence, created_at, activity_id);

CREATE INDEX idx_projection_thread_messages_thread_created
    ON projection_thread_messages(thread_id, created_at);

CREATE INDEX idx_projection_thread_messages_thread_created_id
    ON projection_thread_messages(thread_id, created_at, message_id);

CREATE INDEX idx_projection_thread_proposed_plans_thread_created
    ON projection_thread_proposed_plans(thread_id, created_at);

CREATE INDEX idx_projection_thread_sessions_instance
    ON projection_thread_sessions(provider_instance_id);

CREATE INDEX idx_projection_thread_sessions_provider_session
    ON projection_thread_sessions(provider_session_id);

CREATE INDEX idx_projection_threads_project_archived_at
    ON projection_threads(project_id, archived_at);

CREATE INDEX idx_projection_threads_project_deleted_created
    ON projection_threads(project_id, deleted_at, created_at);

CREATE INDEX idx_projection_threads_project_id
    ON projection_threads(project_id);

CREATE INDEX idx_projection_threads_shell_active
    ON projection_threads(deleted_at, archived_at, project_id, created_at, thread_id);

CREATE INDEX idx_projection_threads_shell_archived
    ON projection_threads(deleted_at, archived_at, project_id, thread_id);

CREATE INDEX idx_projection_turns_thread_checkpoint_completed
    ON projection_turns(thread_id, checkpoint_turn_count, completed_at);

CREATE INDEX idx_projection_turns_thread_requested
    ON projection_turns(thread_id, requested_at);

CREATE INDEX idx_provider_session_runtime_instance
    ON provider_session_runtime(provider_instance_id);

CREATE INDEX idx_provider_session_runtime_provider
    ON provider_session_runtime(provider_name);

CREATE INDEX idx_provider_session_runtime_status
    ON provider_session_runtime(status);


-- Constructed rows (not from a real database).
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (1, 'evt-0001', 'project', 'proj-1', 1, 'project.created', '2026-05-20T09:59:00.000Z', 'cmd-0001', NULL, NULL, 'client', '{"projectId":"proj-1","title":"acme-app","workspaceRoot":"/home/dev/acme-app","defaultModelSelection":{"instanceId":"codex","model":"gpt-5-codex"},"scripts":[],"createdAt":"2026-05-20T09:59:00.000Z","updatedAt":"2026-05-20T09:59:00.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (2, 'evt-0002', 'thread', 'thread-a', 1, 'thread.created', '2026-05-20T10:00:00.000Z', 'cmd-0002', NULL, NULL, 'client', '{"threadId":"thread-a","projectId":"proj-1","title":"New thread","modelSelection":{"instanceId":"codex","model":"gpt-5-codex","options":[{"id":"reasoningEffort","value":"high"}]},"runtimeMode":"full-access","interactionMode":"default","branch":"main","worktreePath":null,"createdAt":"2026-05-20T10:00:00.000Z","updatedAt":"2026-05-20T10:00:00.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (3, 'evt-0003', 'thread', 'thread-a', 2, 'thread.message-sent', '2026-05-20T10:00:01.000Z', 'cmd-0003', NULL, NULL, 'client', '{"threadId":"thread-a","messageId":"msg-u1","role":"user","text":"Fix the flaky test in the screenshot","attachments":[{"type":"image","id":"thread-a-7f1c","name":"shot.png","mimeType":"image/png","sizeBytes":20311}],"turnId":null,"streaming":false,"createdAt":"2026-05-20T10:00:01.000Z","updatedAt":"2026-05-20T10:00:01.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (4, 'evt-0004', 'thread', 'thread-a', 3, 'thread.turn-start-requested', '2026-05-20T10:00:01.010Z', 'cmd-0004', NULL, NULL, 'client', '{"threadId":"thread-a","messageId":"msg-u1","runtimeMode":"full-access","interactionMode":"default","createdAt":"2026-05-20T10:00:01.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (5, 'evt-0005', 'thread', 'thread-a', 4, 'thread.meta-updated', '2026-05-20T10:00:02.000Z', 'server:title:1', NULL, NULL, 'server', '{"threadId":"thread-a","title":"Fix flaky test","updatedAt":"2026-05-20T10:00:02.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (6, 'evt-0006', 'thread', 'thread-a', 5, 'thread.session-set', '2026-05-20T10:00:03.000Z', 'server:session:1', NULL, NULL, 'server', '{"threadId":"thread-a","session":{"status":"running","providerName":"codex","providerInstanceId":"codex","runtimeMode":"full-access","activeTurnId":"turn-1","lastError":null,"updatedAt":"2026-05-20T10:00:03.000Z"}}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (7, 'evt-0007', 'thread', 'thread-a', 6, 'thread.activity-appended', '2026-05-20T10:00:04.000Z', 'provider:e1:thread-activity-append:1', NULL, NULL, 'provider', '{"threadId":"thread-a","activity":{"id":"act-1","tone":"tool","kind":"tool.started","summary":"Ran command started","payload":{"itemType":"command_execution","detail":"npm test -- parser"},"turnId":"turn-1","createdAt":"2026-05-20T10:00:04.000Z"}}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (8, 'evt-0008', 'thread', 'thread-a', 7, 'thread.activity-appended', '2026-05-20T10:00:05.000Z', 'provider:e2:thread-activity-append:1', NULL, NULL, 'provider', '{"threadId":"thread-a","activity":{"id":"act-2","tone":"tool","kind":"tool.completed","summary":"Ran command","payload":{"itemType":"command_execution","detail":"npm test -- parser","data":{"id":"item_7","type":"commandExecution","command":"npm test -- parser","exitCode":1,"aggregatedOutput":"1 failing"}},"turnId":"turn-1","createdAt":"2026-05-20T10:00:05.000Z"}}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (9, 'evt-0009', 'thread', 'thread-a', 8, 'thread.message-sent', '2026-05-20T10:00:06.000Z', 'provider:e3:assistant-delta:1', NULL, NULL, 'provider', '{"threadId":"thread-a","messageId":"assistant:item_12","role":"assistant","text":"The test races ","turnId":"turn-1","streaming":true,"createdAt":"2026-05-20T10:00:06.000Z","updatedAt":"2026-05-20T10:00:06.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (10, 'evt-0010', 'thread', 'thread-a', 9, 'thread.message-sent', '2026-05-20T10:00:06.100Z', 'provider:e4:assistant-delta:1', NULL, NULL, 'provider', '{"threadId":"thread-a","messageId":"assistant:item_12","role":"assistant","text":"on the shared ","turnId":"turn-1","streaming":true,"createdAt":"2026-05-20T10:00:06.000Z","updatedAt":"2026-05-20T10:00:06.100Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (11, 'evt-0011', 'thread', 'thread-a', 10, 'thread.message-sent', '2026-05-20T10:00:06.200Z', 'provider:e5:assistant-delta:1', NULL, NULL, 'provider', '{"threadId":"thread-a","messageId":"assistant:item_12","role":"assistant","text":"fixture.","turnId":"turn-1","streaming":true,"createdAt":"2026-05-20T10:00:06.000Z","updatedAt":"2026-05-20T10:00:06.200Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (12, 'evt-0012', 'thread', 'thread-a', 11, 'thread.message-sent', '2026-05-20T10:00:07.000Z', 'provider:e6:assistant-complete:1', NULL, NULL, 'provider', '{"threadId":"thread-a","messageId":"assistant:item_12","role":"assistant","text":"","turnId":"turn-1","streaming":false,"createdAt":"2026-05-20T10:00:06.000Z","updatedAt":"2026-05-20T10:00:07.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (13, 'evt-0013', 'thread', 'thread-a', 12, 'thread.turn-diff-completed', '2026-05-20T10:00:08.000Z', 'server:checkpoint:1', NULL, NULL, 'server', '{"threadId":"thread-a","turnId":"turn-1","checkpointTurnCount":1,"checkpointRef":"refs/t3/checkpoints/dGhyZWFkLWE/turn/1","status":"ready","files":[{"path":"test/parser.test.ts","kind":"modified","additions":3,"deletions":1}],"assistantMessageId":"assistant:item_12","completedAt":"2026-05-20T10:00:08.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (14, 'evt-0014', 'thread', 'thread-a', 13, 'thread.session-set', '2026-05-20T10:00:08.500Z', 'server:session:2', NULL, NULL, 'server', '{"threadId":"thread-a","session":{"status":"ready","providerName":"codex","providerInstanceId":"codex","runtimeMode":"full-access","activeTurnId":null,"lastError":null,"updatedAt":"2026-05-20T10:00:08.500Z"}}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (15, 'evt-0015', 'thread', 'thread-b', 1, 'thread.created', '2026-05-20T11:00:00.000Z', 'cmd-0015', NULL, NULL, 'client', '{"threadId":"thread-b","projectId":"proj-1","title":"Explain the parser","modelSelection":{"provider":"claudeAgent","model":"claude-opus-4-8"},"runtimeMode":"approval-required","interactionMode":"plan","branch":null,"worktreePath":"/home/dev/.t3/worktrees/acme-app/t3-b","createdAt":"2026-05-20T11:00:00.000Z","updatedAt":"2026-05-20T11:00:00.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (16, 'evt-0016', 'thread', 'thread-b', 2, 'thread.message-sent', '2026-05-20T11:00:01.000Z', 'cmd-0016', NULL, NULL, 'client', '{"threadId":"thread-b","messageId":"msg-u2","role":"user","text":"How does the parser handle empty input?","attachments":[],"turnId":null,"streaming":false,"createdAt":"2026-05-20T11:00:01.000Z","updatedAt":"2026-05-20T11:00:01.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (17, 'evt-0017', 'thread', 'thread-b', 3, 'thread.session-set', '2026-05-20T11:00:02.000Z', 'server:session:3', NULL, NULL, 'server', '{"threadId":"thread-b","session":{"status":"running","providerName":"claudeAgent","providerInstanceId":"claude_work","runtimeMode":"approval-required","activeTurnId":"5b2c-turn","lastError":null,"updatedAt":"2026-05-20T11:00:02.000Z"}}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (18, 'evt-0018', 'thread', 'thread-b', 4, 'thread.message-sent', '2026-05-20T11:00:04.000Z', 'provider:f1:assistant-flush:1', NULL, NULL, 'provider', '{"threadId":"thread-b","messageId":"assistant:msg_01X","role":"assistant","text":"It returns an error on empty input.","turnId":"5b2c-turn","streaming":true,"createdAt":"2026-05-20T11:00:03.000Z","updatedAt":"2026-05-20T11:00:03.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (19, 'evt-0019', 'thread', 'thread-b', 5, 'thread.message-sent', '2026-05-20T11:00:04.100Z', 'provider:f2:assistant-complete:1', NULL, NULL, 'provider', '{"threadId":"thread-b","messageId":"assistant:msg_01X","role":"assistant","text":"","turnId":"5b2c-turn","streaming":false,"createdAt":"2026-05-20T11:00:03.000Z","updatedAt":"2026-05-20T11:00:04.000Z"}', '{}');
INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, causation_event_id, correlation_id, actor_kind, payload_json, metadata_json) VALUES (20, 'evt-0020', 'thread', 'thread-b', 6, 'thread.session-set', '2026-05-20T11:00:05.000Z', 'server:session:4', NULL, NULL, 'server', '{"threadId":"thread-b","session":{"status":"ready","providerName":"claudeAgent","providerInstanceId":"claude_work","runtimeMode":"approval-required","activeTurnId":null,"lastError":null,"updatedAt":"2026-05-20T11:00:05.000Z"}}', '{}');
INSERT INTO provider_session_runtime (thread_id, provider_name, adapter_key, runtime_mode, status, last_seen_at, resume_cursor_json, runtime_payload_json, provider_instance_id) VALUES ('thread-a', 'codex', 'codex', 'full-access', 'stopped', '2026-05-20T10:00:09.000Z', '{"threadId":"019a3c2e-5d10-7aa2-8b4e-2f6c9d1a3b58"}', NULL, 'codex');
INSERT INTO provider_session_runtime (thread_id, provider_name, adapter_key, runtime_mode, status, last_seen_at, resume_cursor_json, runtime_payload_json, provider_instance_id) VALUES ('thread-b', 'claudeAgent', 'claudeAgent', 'approval-required', 'stopped', '2026-05-20T11:00:06.000Z', '{"threadId":"thread-b","resume":"0f3c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04","resumeSessionAt":"a1","turnCount":1}', NULL, 'claude_work');
INSERT INTO projection_turns (thread_id, turn_id, pending_message_id, assistant_message_id, state, requested_at, started_at, completed_at, checkpoint_turn_count, checkpoint_ref, checkpoint_status, checkpoint_files_json) VALUES ('thread-a', 'turn-1', 'msg-u1', 'assistant:item_12', 'completed', '2026-05-20T10:00:01.000Z', '2026-05-20T10:00:03.000Z', '2026-05-20T10:00:08.500Z', 1, 'refs/t3/checkpoints/dGhyZWFkLWE/turn/1', 'ready', '[]');
