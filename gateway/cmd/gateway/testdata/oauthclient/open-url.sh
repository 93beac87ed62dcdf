#!/bin/sh
# The "browser" mcp-remote opens (through the open package's xdg-open,
# which runs $BROWSER when no desktop is running): it hands the URL to the
# test driver, which drives headless Chromium to it.
printf '%s\n' "$1" >> "$OAUTH_URL_FILE"
