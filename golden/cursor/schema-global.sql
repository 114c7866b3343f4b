-- A Cursor global state.vscdb (globalStorage/state.vscdb, 2025+): ItemTable and cursorDiskKV with the same
-- schema, as recorded from the real May 2025 database Aleksey0x/CursorSync globalStorage/state.vscdb @ c3463b53
-- (research/cursor.md section 2; the file itself holds login tokens and was not copied).
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
