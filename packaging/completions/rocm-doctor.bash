# bash completion for rocm-doctor
_rocm_doctor() {
  local cur prev
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    --replay|capture|--plugin-dir|--knowledge) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -o|--output|--fix-script|--archive|--policy|--python|--log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --rocm-root) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --baseline) COMPREPLY=($(compgen -W "auto" -- "$cur") $(compgen -f -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "text json markdown junit prometheus npd html" -- "$cur")); return ;;
    --fail-on) COMPREPLY=($(compgen -W "error warning" -- "$cur")); return ;;
    --level) COMPREPLY=($(compgen -W "quick standard full" -- "$cur")); return ;;
    --since) COMPREPLY=($(compgen -W "boot 1h 24h 7d" -- "$cur")); return ;;
    --probe-timeout|--target-gfx) return ;;
    --only|--skip)
      local ids
      ids=$(rocm-doctor --list-checks 2>/dev/null | awk 'NF == 0 {exit} {print $1}')
      COMPREPLY=($(compgen -W "$ids" -- "${cur##*,}")); return ;;
  esac
  if [[ " ${COMP_WORDS[*]} " == *" targets "* && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -f -- "$cur")); return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "--replay --format --json --output -o --only --skip --list-checks --fail-on --no-color --verbose -v --image --target-gfx --fix-script --redact --archive --plugin-dir --knowledge --policy --level --since --probe-timeout --python --rocm-root --symptom --log --dry-run --yes -y --baseline --version --help -h" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "check capture explain diff fleet fix knowledge targets why run" -- "$cur"))
  fi
}
complete -F _rocm_doctor rocm-doctor
