-- Stand-ins for the parts of a Supabase database that Pawtograder's
-- migrations (github.com/pawtograder/platform, supabase/migrations) use but
-- that a plain PostgreSQL 15 lacks: Supabase's extra roles, the auth tables
-- beyond auth.users, and the schemas of extensions Debian does not ship
-- (pg_graphql, pgsodium, supabase_vault, pgjwt, pg_cron, pg_net, pgmq,
-- Realtime, Storage). Applied after supabase/fixtures/00_supabase_roles.sql
-- and supabase/devstack/gotruestandin/schema.sql, before the first migration.
--
-- Only shapes, never behaviour: cron.schedule records a job and runs
-- nothing, net.http_* send nothing, pgmq queues are plain tables,
-- realtime.send drops the message. Good enough to build the real schema and
-- exercise its triggers; not a Supabase.

DO $roles$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['supabase_admin', 'supabase_storage_admin', 'supabase_realtime_admin',
                           'supabase_replication_admin', 'supabase_read_only_user', 'dashboard_user',
                           'pgbouncer', 'pgsodium_keyholder', 'pgsodium_keyiduser', 'pgsodium_keymaker'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I NOLOGIN', r);
    END IF;
  END LOOP;
END
$roles$;

CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE SCHEMA IF NOT EXISTS extensions;
GRANT USAGE ON SCHEMA extensions TO anon, authenticated, service_role;
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA extensions;
-- Supabase installs pgcrypto in `extensions`; Pawtograder calls both
-- extensions.gen_random_bytes and unqualified digest()/gen_random_bytes().
CREATE OR REPLACE FUNCTION extensions.gen_random_bytes(integer) RETURNS bytea
  LANGUAGE sql VOLATILE AS $$ SELECT public.gen_random_bytes($1) $$;
CREATE OR REPLACE FUNCTION extensions.digest(bytea, text) RETURNS bytea
  LANGUAGE sql IMMUTABLE AS $$ SELECT public.digest($1, $2) $$;
CREATE OR REPLACE FUNCTION extensions.digest(text, text) RETURNS bytea
  LANGUAGE sql IMMUTABLE AS $$ SELECT public.digest($1, $2) $$;
CREATE OR REPLACE FUNCTION extensions.gen_random_uuid() RETURNS uuid
  LANGUAGE sql VOLATILE AS $$ SELECT pg_catalog.gen_random_uuid() $$;

CREATE SCHEMA IF NOT EXISTS graphql;
CREATE SCHEMA IF NOT EXISTS graphql_public;
CREATE SCHEMA IF NOT EXISTS pgsodium;
CREATE SCHEMA IF NOT EXISTS pgbouncer;

-- plv8: an untrusted language without a validator, so CREATE FUNCTION with a
-- JavaScript body succeeds (and calling it fails, which no seed does).
DO $plv8$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_language WHERE lanname = 'plv8') THEN
    CREATE LANGUAGE plv8 HANDLER plpgsql_call_handler;
  END IF;
END
$plv8$;

-- auth: GoTrue's identities and audit log (the columns migrations touch).
CREATE TABLE IF NOT EXISTS auth.identities (
  provider_id     text NOT NULL,
  user_id         uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  identity_data   jsonb NOT NULL,
  provider        text NOT NULL,
  last_sign_in_at timestamptz,
  created_at      timestamptz,
  updated_at      timestamptz,
  email           text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
  id              uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  CONSTRAINT identities_provider_id_provider_unique UNIQUE (provider_id, provider)
);
CREATE TABLE IF NOT EXISTS auth.audit_log_entries (
  instance_id uuid,
  id          uuid NOT NULL PRIMARY KEY,
  payload     json,
  created_at  timestamptz,
  ip_address  varchar(64) NOT NULL DEFAULT ''
);

-- vault
CREATE SCHEMA IF NOT EXISTS vault;
CREATE TABLE IF NOT EXISTS vault.secrets (
  id          uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  name        text UNIQUE,
  description text NOT NULL DEFAULT '',
  secret      text NOT NULL,
  key_id      uuid,
  nonce       bytea,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE OR REPLACE VIEW vault.decrypted_secrets AS
  SELECT s.*, s.secret AS decrypted_secret FROM vault.secrets s;
CREATE OR REPLACE FUNCTION vault.create_secret(new_secret text, new_name text DEFAULT NULL,
    new_description text DEFAULT '', new_key_id uuid DEFAULT NULL) RETURNS uuid
  LANGUAGE sql AS $$
    INSERT INTO vault.secrets (secret, name, description, key_id)
    VALUES (new_secret, new_name, new_description, new_key_id) RETURNING id
  $$;
CREATE OR REPLACE FUNCTION vault.update_secret(secret_id uuid, new_secret text DEFAULT NULL,
    new_name text DEFAULT NULL, new_description text DEFAULT NULL, new_key_id uuid DEFAULT NULL) RETURNS void
  LANGUAGE sql AS $$
    UPDATE vault.secrets SET secret = coalesce(new_secret, secret), name = coalesce(new_name, name),
           description = coalesce(new_description, description), updated_at = now()
     WHERE id = secret_id
  $$;

-- storage
CREATE SCHEMA IF NOT EXISTS storage;
GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;
CREATE TABLE IF NOT EXISTS storage.buckets (
  id                 text NOT NULL PRIMARY KEY,
  name               text NOT NULL,
  owner              uuid,
  created_at         timestamptz DEFAULT now(),
  updated_at         timestamptz DEFAULT now(),
  public             boolean DEFAULT false,
  avif_autodetection boolean DEFAULT false,
  file_size_limit    bigint,
  allowed_mime_types text[],
  owner_id           text
);
CREATE TABLE IF NOT EXISTS storage.objects (
  id               uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  bucket_id        text REFERENCES storage.buckets (id),
  name             text,
  owner            uuid,
  created_at       timestamptz DEFAULT now(),
  updated_at       timestamptz DEFAULT now(),
  last_accessed_at timestamptz DEFAULT now(),
  metadata         jsonb,
  path_tokens      text[] GENERATED ALWAYS AS (string_to_array(name, '/')) STORED,
  version          text,
  owner_id         text,
  user_metadata    jsonb
);
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
GRANT ALL ON storage.objects, storage.buckets TO anon, authenticated, service_role;
CREATE OR REPLACE FUNCTION storage.foldername(name text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE _parts text[];
BEGIN
  SELECT string_to_array(name, '/') INTO _parts;
  RETURN _parts[1:array_length(_parts, 1) - 1];
END $$;
CREATE OR REPLACE FUNCTION storage.filename(name text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE _parts text[];
BEGIN
  SELECT string_to_array(name, '/') INTO _parts;
  RETURN _parts[array_length(_parts, 1)];
END $$;
CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE _parts text[]; _filename text;
BEGIN
  SELECT string_to_array(name, '/') INTO _parts;
  SELECT _parts[array_length(_parts, 1)] INTO _filename;
  RETURN reverse(split_part(reverse(_filename), '.', 1));
END $$;

-- realtime
CREATE SCHEMA IF NOT EXISTS realtime;
GRANT USAGE ON SCHEMA realtime TO anon, authenticated, service_role;
CREATE TABLE IF NOT EXISTS realtime.messages (
  id          bigint GENERATED BY DEFAULT AS IDENTITY,
  topic       text NOT NULL,
  extension   text NOT NULL,
  payload     jsonb,
  event       text,
  private     boolean DEFAULT false,
  updated_at  timestamp NOT NULL DEFAULT now(),
  inserted_at timestamp NOT NULL DEFAULT now(),
  CONSTRAINT messages_pkey PRIMARY KEY (id, inserted_at)
);
ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT ON realtime.messages TO authenticated, service_role;
CREATE OR REPLACE FUNCTION realtime.topic() RETURNS text
  LANGUAGE sql STABLE AS $$ SELECT nullif(current_setting('realtime.topic', true), '')::text $$;
CREATE OR REPLACE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
  RETURNS void LANGUAGE plpgsql AS $$ BEGIN NULL; END $$;
CREATE OR REPLACE FUNCTION realtime.broadcast_changes(topic_name text, event_name text, operation text,
    table_name text, table_schema text, new record, old record, level text DEFAULT 'ROW')
  RETURNS void LANGUAGE plpgsql AS $$ BEGIN NULL; END $$;
DO $publication$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$publication$;

-- pg_cron
CREATE SCHEMA IF NOT EXISTS cron;
CREATE TABLE IF NOT EXISTS cron.job (
  jobid    bigserial PRIMARY KEY,
  schedule text NOT NULL,
  command  text NOT NULL,
  nodename text NOT NULL DEFAULT 'localhost',
  nodeport integer NOT NULL DEFAULT 5432,
  database text NOT NULL DEFAULT current_database(),
  username text NOT NULL DEFAULT current_user,
  active   boolean NOT NULL DEFAULT true,
  jobname  text UNIQUE
);
CREATE TABLE IF NOT EXISTS cron.job_run_details (
  jobid          bigint,
  runid          bigserial PRIMARY KEY,
  job_pid        integer,
  database       text,
  username       text,
  command        text,
  status         text,
  return_message text,
  start_time     timestamptz,
  end_time       timestamptz
);
CREATE OR REPLACE FUNCTION cron.schedule(job_name text, schedule text, command text) RETURNS bigint
  LANGUAGE sql AS $$
    INSERT INTO cron.job (jobname, schedule, command) VALUES (job_name, schedule, command)
    ON CONFLICT (jobname) DO UPDATE SET schedule = excluded.schedule, command = excluded.command
    RETURNING jobid
  $$;
CREATE OR REPLACE FUNCTION cron.schedule(schedule text, command text) RETURNS bigint
  LANGUAGE sql AS $$ INSERT INTO cron.job (schedule, command) VALUES (schedule, command) RETURNING jobid $$;
CREATE OR REPLACE FUNCTION cron.unschedule(job_name text) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM cron.job WHERE jobname = job_name;
  IF NOT FOUND THEN RAISE EXCEPTION 'could not find valid entry for job ''%''', job_name; END IF;
  RETURN true;
END $$;
CREATE OR REPLACE FUNCTION cron.unschedule(job_id bigint) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM cron.job WHERE jobid = job_id;
  IF NOT FOUND THEN RAISE EXCEPTION 'could not find valid entry for job %', job_id; END IF;
  RETURN true;
END $$;
CREATE OR REPLACE FUNCTION cron.alter_job(job_id bigint, schedule text DEFAULT NULL, command text DEFAULT NULL,
    database text DEFAULT NULL, username text DEFAULT NULL, active boolean DEFAULT NULL) RETURNS void
  LANGUAGE sql AS $$
    UPDATE cron.job SET schedule = coalesce(alter_job.schedule, job.schedule),
           command = coalesce(alter_job.command, job.command), active = coalesce(alter_job.active, job.active)
     WHERE jobid = job_id
  $$;

-- pg_net
CREATE SCHEMA IF NOT EXISTS net;
GRANT USAGE ON SCHEMA net TO anon, authenticated, service_role;
CREATE OR REPLACE FUNCTION net.http_post(url text, body jsonb DEFAULT '{}'::jsonb, params jsonb DEFAULT '{}'::jsonb,
    headers jsonb DEFAULT '{"Content-Type": "application/json"}'::jsonb, timeout_milliseconds integer DEFAULT 5000)
  RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint $$;
CREATE OR REPLACE FUNCTION net.http_get(url text, params jsonb DEFAULT '{}'::jsonb,
    headers jsonb DEFAULT '{}'::jsonb, timeout_milliseconds integer DEFAULT 5000)
  RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint $$;

-- pgmq: queues as plain tables q_<name> / a_<name>.
CREATE SCHEMA IF NOT EXISTS pgmq;
GRANT USAGE ON SCHEMA pgmq TO anon, authenticated, service_role;
DO $pgmq_type$
BEGIN
  IF to_regtype('pgmq.message_record') IS NULL THEN
    CREATE TYPE pgmq.message_record AS (msg_id bigint, read_ct integer, enqueued_at timestamptz,
                                        vt timestamptz, message jsonb, headers jsonb);
  END IF;
END
$pgmq_type$;
CREATE TABLE IF NOT EXISTS pgmq.meta (
  queue_name     varchar NOT NULL UNIQUE,
  is_partitioned boolean NOT NULL DEFAULT false,
  is_unlogged    boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE OR REPLACE FUNCTION pgmq.create(queue_name text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE IF NOT EXISTS pgmq.%I (msg_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    read_ct integer NOT NULL DEFAULT 0, enqueued_at timestamptz NOT NULL DEFAULT now(),
    vt timestamptz NOT NULL DEFAULT now(), message jsonb, headers jsonb)', 'q_' || queue_name);
  EXECUTE format('CREATE TABLE IF NOT EXISTS pgmq.%I (msg_id bigint PRIMARY KEY, read_ct integer NOT NULL DEFAULT 0,
    enqueued_at timestamptz NOT NULL DEFAULT now(), archived_at timestamptz NOT NULL DEFAULT now(),
    vt timestamptz NOT NULL, message jsonb, headers jsonb)', 'a_' || queue_name);
  INSERT INTO pgmq.meta (queue_name) VALUES (queue_name) ON CONFLICT DO NOTHING;
END $$;
CREATE OR REPLACE FUNCTION pgmq.drop_queue(queue_name text) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DROP TABLE IF EXISTS pgmq.%I', 'q_' || queue_name);
  EXECUTE format('DROP TABLE IF EXISTS pgmq.%I', 'a_' || queue_name);
  DELETE FROM pgmq.meta m WHERE m.queue_name = drop_queue.queue_name;
  RETURN true;
END $$;
CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, delay integer DEFAULT 0) RETURNS SETOF bigint
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('INSERT INTO pgmq.%I (vt, message) VALUES (now() + make_interval(secs => $2), $1) RETURNING msg_id',
                              'q_' || queue_name) USING msg, delay;
END $$;
CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer DEFAULT 0) RETURNS SETOF bigint
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('INSERT INTO pgmq.%I (vt, message, headers) VALUES (now() + make_interval(secs => $3), $1, $2) RETURNING msg_id',
                              'q_' || queue_name) USING msg, headers, delay;
END $$;
CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], delay integer DEFAULT 0) RETURNS SETOF bigint
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('INSERT INTO pgmq.%I (vt, message) SELECT now() + make_interval(secs => $2), unnest($1) RETURNING msg_id',
                              'q_' || queue_name) USING msgs, delay;
END $$;
CREATE OR REPLACE FUNCTION pgmq.read(queue_name text, vt integer, qty integer) RETURNS SETOF pgmq.message_record
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('UPDATE pgmq.%1$I SET vt = now() + make_interval(secs => $1), read_ct = read_ct + 1
     WHERE msg_id IN (SELECT msg_id FROM pgmq.%1$I WHERE vt <= now() ORDER BY msg_id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING msg_id, read_ct, enqueued_at, vt, message, headers', 'q_' || queue_name) USING vt, qty;
END $$;
CREATE OR REPLACE FUNCTION pgmq.pop(queue_name text) RETURNS SETOF pgmq.message_record
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('DELETE FROM pgmq.%1$I WHERE msg_id = (SELECT msg_id FROM pgmq.%1$I WHERE vt <= now()
     ORDER BY msg_id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING msg_id, read_ct, enqueued_at, vt, message, headers',
     'q_' || queue_name);
END $$;
CREATE OR REPLACE FUNCTION pgmq.delete(queue_name text, msg_id bigint) RETURNS boolean
  LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  EXECUTE format('DELETE FROM pgmq.%I WHERE msg_id = $1', 'q_' || queue_name) USING msg_id;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n > 0;
END $$;
CREATE OR REPLACE FUNCTION pgmq.delete(queue_name text, msg_ids bigint[]) RETURNS SETOF bigint
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('DELETE FROM pgmq.%I WHERE msg_id = ANY($1) RETURNING msg_id', 'q_' || queue_name) USING msg_ids;
END $$;
CREATE OR REPLACE FUNCTION pgmq.archive(queue_name text, msg_id bigint) RETURNS boolean
  LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  EXECUTE format('WITH m AS (DELETE FROM pgmq.%I WHERE msg_id = $1 RETURNING *)
     INSERT INTO pgmq.%I (msg_id, read_ct, enqueued_at, vt, message, headers)
     SELECT msg_id, read_ct, enqueued_at, vt, message, headers FROM m', 'q_' || queue_name, 'a_' || queue_name) USING msg_id;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n > 0;
END $$;
CREATE OR REPLACE FUNCTION pgmq.archive(queue_name text, msg_ids bigint[]) RETURNS SETOF bigint
  LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('WITH m AS (DELETE FROM pgmq.%I WHERE msg_id = ANY($1) RETURNING *)
     INSERT INTO pgmq.%I (msg_id, read_ct, enqueued_at, vt, message, headers)
     SELECT msg_id, read_ct, enqueued_at, vt, message, headers FROM m RETURNING msg_id',
     'q_' || queue_name, 'a_' || queue_name) USING msg_ids;
END $$;
