-- A Cursor workspace state.vscdb (workspaceStorage/<hash>/state.vscdb): VS Code's key-value table,
-- as in the real 2024 database slevin48/cursor-history state.vscdb @ 74b0ce6cbceee765239bf001f3218e4f5fbd8ecd.
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
