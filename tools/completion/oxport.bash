# bash completion for oxport (installed as
# $datadir/bash-completion/completions/oxport).
#
# Options are read from `oxport CMD --help` and model names from
# `oxport export --list` when asked, so the completion follows the binary
# it completes for instead of a second list kept here.

_oxport_options()
{
    "$1" "$2" --help 2>/dev/null |
        sed -n 's/^ \{1,\}\(-[a-zA-Z], \)\{0,1\}\(--\{0,1\}[a-z][a-z-]*\).*/\2/p' | sort -u
}

_oxport()
{
    local cur prev cmd prog i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    prog=${COMP_WORDS[0]}
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        local cmds
        cmds=$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
        COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
        return
    fi
    if [[ $cmd == help ]]; then
        COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')" -- "$cur"))
        return
    fi

    case $prev in
        --format)
            case $cmd in
                dump) COMPREPLY=($(compgen -W "text json dot svg png" -- "$cur")) ;;
                ops) COMPREPLY=($(compgen -W "text markdown json" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
            esac
            return ;;
        --config)
            COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -- "$cur"))
            return ;;
        --plugin-path|--test-data)
            COMPREPLY=($(compgen -d -- "$cur"))
            return ;;
        --report)
            COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            return ;;
        -o|--output)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --opset|--batch|--seed|--depth|--rtol|--scope|--input-names|--output-names|--functions)
            return ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_oxport_options "$prog" "$cmd")" -- "$cur"))
        return
    fi
    case $cmd in
        export)
            COMPREPLY=($(compgen -W "$("$prog" export --list 2>/dev/null | awk 'NR > 1 {print $1}')" -- "$cur")) ;;
        dump|check|diff)
            COMPREPLY=($(compgen -f -X '!*.onnx' -- "$cur") $(compgen -d -- "$cur")) ;;
        plugins)
            COMPREPLY=($(compgen -f -X '!*.so' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
}
complete -F _oxport oxport
