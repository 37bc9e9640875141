# Shell functions that make a small PKI with the openssl CLI; sourced by scripts/run-local.sh
# and the tests. Keys are EC P-256; certificates last one year.

# pki_ca DIR NAME: DIR/NAME.crt and DIR/NAME.key, a self-signed CA (kept if present).
pki_ca() {
    local dir=$1 name=$2
    [[ -s $dir/$name.crt && -s $dir/$name.key ]] && return 0
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
        -subj "/CN=$name" -keyout "$dir/$name.key" -out "$dir/$name.crt" \
        -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}

# pki_cert DIR CA NAME KIND SUBJECT [SANS]: DIR/NAME.{crt,key} signed by DIR/CA.
# KIND is server or client; SUBJECT like "/O=system:masters/CN=admin"; SANS like
# "DNS:localhost,IP:127.0.0.1" (servers). Kept if present.
pki_cert() {
    local dir=$1 ca=$2 name=$3 kind=$4 subject=$5 sans=${6:-}
    [[ -s $dir/$name.crt && -s $dir/$name.key ]] && return 0
    local ext=$dir/$name.ext usage=clientAuth
    [[ $kind == server ]] && usage=serverAuth,clientAuth
    {
        echo "basicConstraints=CA:FALSE"
        echo "keyUsage=critical,digitalSignature,keyEncipherment"
        echo "extendedKeyUsage=$usage"
        [[ -n $sans ]] && echo "subjectAltName=$sans"
    } >"$ext"
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$subject" \
        -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.crt" -CAkey "$dir/$ca.key" \
        -CAcreateserial -days 365 -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null
    rm -f "$dir/$name.csr" "$ext"
}
