-- OpenCode's SQLite schema (tables the converter reads, plus project for the foreign key), written
-- from the Drizzle table definitions in anomalyco/opencode packages/opencode/src/session/session.sql.ts
-- @ 063e8306d9895af9bdd175306cfa4fa3291fd83a and the project columns json-migration.ts inserts
-- (packages/opencode/src/storage/json-migration.ts @ 062aa8c024a00b7348dd3160c0b4fbbfce074ee2).
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL, `commands` text);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL REFERENCES `project`(`id`) ON DELETE CASCADE, `workspace_id` text, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL, `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, `permission` text, `goal` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL REFERENCES `session`(`id`) ON DELETE CASCADE, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`, `time_created`, `id`);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL REFERENCES `message`(`id`) ON DELETE CASCADE, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`, `id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE TABLE `todo` (`session_id` text NOT NULL REFERENCES `session`(`id`) ON DELETE CASCADE, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, PRIMARY KEY(`session_id`, `position`));
CREATE TABLE `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL REFERENCES `session`(`id`) ON DELETE CASCADE, `type` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `permission` (`project_id` text PRIMARY KEY REFERENCES `project`(`id`) ON DELETE CASCADE, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
