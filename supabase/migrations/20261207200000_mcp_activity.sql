-- MCP gateway: the activity record (docs/activity.md). One row per tool
-- call: when, who, through which connection, for which class, which tool,
-- how it ended, and the student profiles whose records the answer held.
--
-- Writes: only the gateway's recorder, in batches, through
-- mcp_activity_record with the service role (a background worker that no
-- tool handler reaches; the key stays in the auth layer, which builds the
-- client). No person can insert, change or delete a row: a record people
-- could write would not be a record. Each row carries the gateway's
-- call_id, so a batch retried after a lost answer adds nothing twice.
--
-- Reads: row-level security. Each person reads their own rows; a class's
-- instructors read the class's rows. The summaries below run as their
-- caller (SECURITY INVOKER), so the same policy decides what they count.
-- The one SECURITY DEFINER function, mcp_activity_my_pending, answers
-- only the caller's own pending proposals (auth.uid()).
--
-- Retention: mcp_activity_purge deletes rows older than the gateway's
-- GATEWAY_ACTIVITY_RETENTION in bounded batches, one replica at a time.
-- Idempotent: applying the file twice is a no-op.

CREATE TABLE IF NOT EXISTS public.mcp_activity (
    id                  bigint      GENERATED ALWAYS AS IDENTITY,
    call_id             uuid        NOT NULL,
    at                  timestamptz NOT NULL,
    user_id             uuid        NOT NULL,
    token_id            text,
    client_id           text,
    client_name         text        NOT NULL DEFAULT '',
    class_id            bigint,
    tool                text        NOT NULL,
    outcome             text        NOT NULL,
    duration_ms         integer     NOT NULL,
    student_profile_ids uuid[]      NOT NULL DEFAULT '{}',
    CONSTRAINT mcp_activity_pkey PRIMARY KEY (id),
    CONSTRAINT mcp_activity_call_id_key UNIQUE (call_id),
    CONSTRAINT mcp_activity_size_check CHECK (
        octet_length(tool) <= 80 AND octet_length(outcome) <= 32
        AND octet_length(coalesce(token_id, '')) <= 200 AND octet_length(coalesce(client_id, '')) <= 400
        AND octet_length(client_name) <= 400 AND cardinality(student_profile_ids) <= 1000)
);

CREATE INDEX IF NOT EXISTS mcp_activity_user_idx ON public.mcp_activity (user_id, at);
CREATE INDEX IF NOT EXISTS mcp_activity_class_idx ON public.mcp_activity (class_id, at);
CREATE INDEX IF NOT EXISTS mcp_activity_at_idx ON public.mcp_activity (at);
CREATE INDEX IF NOT EXISTS mcp_activity_students_idx ON public.mcp_activity USING gin (student_profile_ids);

COMMENT ON TABLE public.mcp_activity IS 'MCP gateway: one row per tool call (docs/activity.md); written by the gateway only, read under RLS';

-- Whether the caller is an instructor of the class: Pawtograder's own
-- rule (authorizeforclassinstructor), looked up when a row is read so the
-- migration also applies to a database without Pawtograder's schema.
CREATE OR REPLACE FUNCTION public.mcp_activity_is_instructor(p_class_id bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
BEGIN
    RETURN p_class_id IS NOT NULL AND public.authorizeforclassinstructor(p_class_id);
END;
$$;

ALTER TABLE public.mcp_activity ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.mcp_activity FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.mcp_activity TO authenticated;
GRANT ALL ON public.mcp_activity TO service_role;

DROP POLICY IF EXISTS mcp_activity_read ON public.mcp_activity;
CREATE POLICY mcp_activity_read ON public.mcp_activity FOR SELECT TO authenticated
    USING (user_id = auth.uid() OR public.mcp_activity_is_instructor(class_id));

-- A batch from the recorder: a JSON array of at most 1000 rows. The
-- connection's name is taken from the token row (for an OAuth grant, the
-- client's name the grant was issued to). p_now is the gateway's clock: a
-- row dated after it is refused with the batch. Returns how many rows
-- were new.
CREATE OR REPLACE FUNCTION public.mcp_activity_record(p_rows jsonb, p_now timestamptz)
RETURNS integer
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    n integer;
BEGIN
    IF jsonb_typeof(p_rows) <> 'array' OR jsonb_array_length(p_rows) > 1000 THEN
        RAISE EXCEPTION 'mcp_activity_record: at most 1000 rows in an array' USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_rows) AS r WHERE (r->>'at')::timestamptz > p_now) THEN
        RAISE EXCEPTION 'mcp_activity_record: a row is dated after p_now' USING ERRCODE = '22023';
    END IF;
    INSERT INTO public.mcp_activity
        (call_id, at, user_id, token_id, client_id, client_name, class_id, tool, outcome, duration_ms, student_profile_ids)
    SELECT (r->>'call_id')::uuid, (r->>'at')::timestamptz, (r->>'user_id')::uuid,
           nullif(r->>'token_id', ''), nullif(r->>'client_id', ''),
           left(coalesce(g.client_name, t.name, r->>'client_id', ''), 200),
           (r->>'class_id')::bigint, r->>'tool', r->>'outcome', (r->>'duration_ms')::integer,
           coalesce(ARRAY(SELECT jsonb_array_elements_text(r->'students'))::uuid[], '{}')
      FROM jsonb_array_elements(p_rows) AS r
      LEFT JOIN public.api_tokens AS t ON t.token_id = nullif(r->>'token_id', '')
      LEFT JOIN public.mcp_oauth_grants AS g ON g.token_id = nullif(r->>'token_id', '')
    ON CONFLICT (call_id) DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END;
$$;

-- Deletes up to p_limit rows recorded before p_before. Any replica may
-- call it; one purge runs at a time and the others return 0 at once.
CREATE OR REPLACE FUNCTION public.mcp_activity_purge(p_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    n integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended('mcp_activity:purge', 0)) THEN
        RETURN 0;
    END IF;
    DELETE FROM public.mcp_activity AS a
     WHERE a.id IN (SELECT x.id FROM public.mcp_activity AS x
                     WHERE x.at < p_before ORDER BY x.at LIMIT least(greatest(p_limit, 1), 10000));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END;
$$;

-- The caller's calls since p_since per connection and tool (the
-- Connections page).
CREATE OR REPLACE FUNCTION public.mcp_activity_mine(p_since timestamptz)
RETURNS TABLE (token_id text, client_name text, tool text, calls bigint, last_at timestamptz)
LANGUAGE sql STABLE
SET search_path = ''
AS $$
    SELECT a.token_id, max(a.client_name), a.tool, count(*), max(a.at)
      FROM public.mcp_activity AS a
     WHERE a.user_id = auth.uid() AND a.at >= p_since
     GROUP BY a.token_id, a.tool
     ORDER BY a.token_id, a.tool;
$$;

-- The class's calls since p_since per staff member and UTC day: the calls
-- per tool and how many distinct students' records the answers held
-- (the class activity page). Empty for anyone but the class's instructors.
CREATE OR REPLACE FUNCTION public.mcp_activity_class_days(p_class_id bigint, p_since timestamptz)
RETURNS TABLE (day date, user_id uuid, tools jsonb, calls bigint, students bigint)
LANGUAGE sql STABLE
SET search_path = ''
AS $$
    WITH rows AS (
        SELECT a.at, a.user_id, a.tool, a.student_profile_ids FROM public.mcp_activity AS a
         WHERE a.class_id = p_class_id AND a.at >= p_since AND public.mcp_activity_is_instructor(p_class_id)),
    per_tool AS (
        SELECT (r.at AT TIME ZONE 'UTC')::date AS d, r.user_id, r.tool, count(*) AS n FROM rows AS r GROUP BY 1, 2, 3),
    per_day AS (
        SELECT p.d, p.user_id, jsonb_object_agg(p.tool, p.n ORDER BY p.tool) AS tools, sum(p.n)::bigint AS calls
          FROM per_tool AS p GROUP BY 1, 2),
    read AS (
        SELECT (r.at AT TIME ZONE 'UTC')::date AS d, r.user_id, count(DISTINCT s.id) AS n
          FROM rows AS r CROSS JOIN LATERAL unnest(r.student_profile_ids) AS s(id) GROUP BY 1, 2)
    SELECT p.d, p.user_id, p.tools, p.calls, coalesce(x.n, 0)
      FROM per_day AS p LEFT JOIN read AS x ON x.d = p.d AND x.user_id = p.user_id
     ORDER BY p.d DESC, p.user_id;
$$;

-- Per student of the class whose records answers held since p_since: how
-- many calls read them, by how many staff members, and when last.
CREATE OR REPLACE FUNCTION public.mcp_activity_class_students(p_class_id bigint, p_since timestamptz)
RETURNS TABLE (profile_id uuid, reads bigint, readers bigint, last_at timestamptz)
LANGUAGE sql STABLE
SET search_path = ''
AS $$
    SELECT s.id, count(*), count(DISTINCT a.user_id), max(a.at)
      FROM public.mcp_activity AS a CROSS JOIN LATERAL unnest(a.student_profile_ids) AS s(id)
     WHERE a.class_id = p_class_id AND a.at >= p_since AND public.mcp_activity_is_instructor(p_class_id)
     GROUP BY s.id
     ORDER BY max(a.at) DESC
     LIMIT 2000;
$$;

-- The class's calls since p_since whose answers held p_student's records,
-- newest first (a student's reads on the class activity page).
CREATE OR REPLACE FUNCTION public.mcp_activity_student_reads(p_class_id bigint, p_student uuid, p_since timestamptz, p_limit integer)
RETURNS TABLE (at timestamptz, user_id uuid, client_name text, tool text, outcome text, student_profile_ids uuid[])
LANGUAGE sql STABLE
SET search_path = ''
AS $$
    SELECT a.at, a.user_id, a.client_name, a.tool, a.outcome, a.student_profile_ids
      FROM public.mcp_activity AS a
     WHERE a.class_id = p_class_id AND a.at >= p_since AND a.student_profile_ids @> ARRAY[p_student]
       AND public.mcp_activity_is_instructor(p_class_id)
     ORDER BY a.at DESC
     LIMIT least(greatest(p_limit, 1), 1000);
$$;

-- The caller's own proposals waiting for approval (the Connections page).
-- mcp_pending_actions is closed to every role but the service role, so
-- this definer function answers only rows of auth.uid().
CREATE OR REPLACE FUNCTION public.mcp_activity_my_pending()
RETURNS TABLE (id uuid, token_id text, class_id bigint, tool text, created_at timestamptz, expires_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
    SELECT a.id, a.token_id, a.class_id, a.tool, a.created_at, a.expires_at
      FROM public.mcp_pending_actions AS a
     WHERE a.user_id = auth.uid() AND a.state = 'pending' AND a.expires_at > now()
     ORDER BY a.created_at DESC
     LIMIT 100;
$$;

REVOKE ALL ON FUNCTION public.mcp_activity_is_instructor(bigint) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_activity_record(jsonb, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_activity_purge(timestamptz, integer) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_activity_mine(timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_activity_class_days(bigint, timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_activity_class_students(bigint, timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_activity_student_reads(bigint, uuid, timestamptz, integer) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_activity_my_pending() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_activity_is_instructor(bigint) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_activity_mine(timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_activity_class_days(bigint, timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_activity_class_students(bigint, timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_activity_student_reads(bigint, uuid, timestamptz, integer) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_activity_my_pending() TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_activity_record(jsonb, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_activity_purge(timestamptz, integer) TO service_role;
