-- GoTrue's auth.sessions, reduced to what the dev stack needs: a session_id
-- claim is honoured only while its row exists (GET /user answers 403
-- session_not_found after a sign-out). Idempotent; applied after the
-- Supabase bootstrap has created auth.users.
CREATE TABLE IF NOT EXISTS auth.sessions (
  id         uuid NOT NULL PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sessions_user_id_idx ON auth.sessions (user_id);
