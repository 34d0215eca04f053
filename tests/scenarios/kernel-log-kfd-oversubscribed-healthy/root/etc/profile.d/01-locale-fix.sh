# shellcheck shell=sh
eval "$(/usr/bin/locale-check C.UTF-8)"
