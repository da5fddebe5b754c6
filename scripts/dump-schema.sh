#!/usr/bin/env bash
# Regenerates db/schema.sql from the migrations on a scratch database of a real PostgreSQL
# (pg_dump is needed). Usage: scripts/dump-schema.sh [postgres://…/postgres]
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-postgres://postgres@127.0.0.1:5432/postgres}"
scratch="schema_dump_$$"
psql "$base" -qc "CREATE DATABASE $scratch"
trap 'psql "$base" -qc "DROP DATABASE IF EXISTS $scratch"' EXIT
url="${base%/*}/$scratch?sslmode=disable"
npm run -s dbmate -- --url "$url" --schema-file db/schema.sql migrate
npm run -s dbmate -- --url "$url" --schema-file db/schema.sql dump
