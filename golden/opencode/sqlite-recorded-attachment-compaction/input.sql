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
INSERT INTO project (id, worktree, vcs, name, icon_url, icon_url_override, icon_color, time_created, time_updated, time_initialized, sandboxes, commands) VALUES ('global', '/tmp/fid-tco/oc/work', 'git', NULL, NULL, NULL, NULL, 1796176826085, 1796180103476, NULL, '[]', NULL);
INSERT INTO session (id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived) VALUES ('ses_dcb53dd5bffebbb6IHfW0xbRtV', 'global', NULL, NULL, 'curious-cabin', '/tmp/fid-tco/oc/work', '', 'Parser title', '1.18.33', NULL, 0, 0, 0, NULL, NULL, 0.0, 600, 75, 0, 3000, 0, NULL, '[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]', 'build', '{"id":"scripted","providerID":"mock","variant":"default"}', 1796180026021, 1796180110978, NULL, NULL);
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_234ac25680018xW630anYX9hD4', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180026735, 1796180049332, '{"role":"user","time":{"created":1796180026735},"agent":"build","model":{"providerID":"mock","modelID":"scripted"},"summary":{"diffs":[]}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_234ac4445001FNV56MqfYEYjed', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180034629, 1796180048076, '{"parentID":"msg_234ac25680018xW630anYX9hD4","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":1225,"input":200,"output":25,"reasoning":0,"cache":{"write":0,"read":1000}},"modelID":"scripted","providerID":"mock","time":{"created":1796180034629,"completed":1796180048014},"finish":"tool-calls"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_234ac790e001k2rqGNcceVtLvK', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180048142, 1796180049823, '{"parentID":"msg_234ac25680018xW630anYX9hD4","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":1225,"input":200,"output":25,"reasoning":0,"cache":{"write":0,"read":1000}},"modelID":"scripted","providerID":"mock","time":{"created":1796180048142,"completed":1796180049821},"finish":"stop"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_234ad54f9001kgqMRIeTNOF2Pt', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180104441, 1796180111116, '{"role":"user","model":{"providerID":"mock","modelID":"scripted"},"agent":"build","time":{"created":1796180104441},"summary":{"diffs":[]}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_234ad698c001VzgUTjeE5Rs0fc', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180109709, 1796180110853, '{"role":"assistant","parentID":"msg_234ad54f9001kgqMRIeTNOF2Pt","mode":"compaction","agent":"compaction","summary":true,"path":{"cwd":"/tmp/fid-tco/oc/work","root":"/tmp/fid-tco/oc/work"},"cost":0,"tokens":{"total":1225,"input":200,"output":25,"reasoning":0,"cache":{"write":0,"read":1000}},"modelID":"scripted","providerID":"mock","time":{"created":1796180109709,"completed":1796180110848},"finish":"stop"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac41dc001XSRtRCTDfy12Z5', 'msg_234ac25680018xW630anYX9hD4', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180034264, 1796180034267, '{"type":"text","synthetic":true,"text":"Called the Read tool with the following input: {\"filePath\":\"/tmp/fid-tco/oc/work/dot.png\"}"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac41dc002dRdbK3ApOQqWPw', 'msg_234ac25680018xW630anYX9hD4', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180034270, 1796180034273, '{"type":"text","synthetic":true,"text":"Image read successfully"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac41dc003No5nNUfUlY64vW', 'msg_234ac25680018xW630anYX9hD4', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180034274, 1796180034285, '{"type":"file","mime":"image/png","url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC","synthetic":true,"filename":"dot.png"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac41dc004xlz3YuQMGuXqa4', 'msg_234ac25680018xW630anYX9hD4', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180034287, 1796180034316, '{"type":"text","text":"\"What colour is this dot\""}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac6b67001IRn6G0CKLX8e06', 'msg_234ac4445001FNV56MqfYEYjed', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180044647, 1796180044653, '{"snapshot":"56edcb725df879eeecc728a80386e66836bdd6a6","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac6b7d001DDXWRrBUoEncxc', 'msg_234ac4445001FNV56MqfYEYjed', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180044669, 1796180044882, '{"type":"text","text":"I''ll run the check.","time":{"start":1796180044669,"end":1796180044880}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac6bc4001QR6mmH7zifUFNS', 'msg_234ac4445001FNV56MqfYEYjed', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180044740, 1796180046154, '{"type":"tool","tool":"bash","callID":"call_mock1","state":{"status":"completed","input":{"command":"echo parse_empty ok","description":"Run the check"},"output":"parse_empty ok\n","metadata":{"output":"parse_empty ok\n","exit":0,"truncated":false},"title":"echo parse_empty ok","time":{"start":1796180044806,"end":1796180046110}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac72ec001FA0Fu0QgDIHRLx', 'msg_234ac4445001FNV56MqfYEYjed', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180046572, 1796180046660, '{"reason":"tool-calls","snapshot":"56edcb725df879eeecc728a80386e66836bdd6a6","type":"step-finish","tokens":{"total":1225,"input":200,"output":25,"reasoning":0,"cache":{"write":0,"read":1000}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac7c7f001rq7bfH5wNuoSBM', 'msg_234ac790e001k2rqGNcceVtLvK', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180049024, 1796180049026, '{"snapshot":"56edcb725df879eeecc728a80386e66836bdd6a6","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac7c8e001vE0YXXYUDM05FB', 'msg_234ac790e001k2rqGNcceVtLvK', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180049039, 1796180049094, '{"type":"text","text":"The check passed: parse_empty ok.","time":{"start":1796180049039,"end":1796180049092}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ac7f0b001923oRitlR57MTg', 'msg_234ac790e001k2rqGNcceVtLvK', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180049675, 1796180049677, '{"reason":"stop","snapshot":"56edcb725df879eeecc728a80386e66836bdd6a6","type":"step-finish","tokens":{"total":1225,"input":200,"output":25,"reasoning":0,"cache":{"write":0,"read":1000}},"cost":0}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ad6909001PIBYcQFBlg35wY', 'msg_234ad54f9001kgqMRIeTNOF2Pt', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180109579, 1796180109604, '{"type":"compaction","auto":false}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ad6bc2001Ip4mm4wvconKyW', 'msg_234ad698c001VzgUTjeE5Rs0fc', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180110283, 1796180110287, '{"snapshot":"56edcb725df879eeecc728a80386e66836bdd6a6","type":"step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ad6bd4001dUih6d6rvInP45', 'msg_234ad698c001VzgUTjeE5Rs0fc', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180110293, 1796180110318, '{"type":"text","text":"Parser title","time":{"start":1796180110293,"end":1796180110316}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_234ad6d76001aRno7oxmqiscjw', 'msg_234ad698c001VzgUTjeE5Rs0fc', 'ses_dcb53dd5bffebbb6IHfW0xbRtV', 1796180110711, 1796180110715, '{"reason":"stop","snapshot":"56edcb725df879eeecc728a80386e66836bdd6a6","type":"step-finish","tokens":{"total":1225,"input":200,"output":25,"reasoning":0,"cache":{"write":0,"read":1000}},"cost":0}');
