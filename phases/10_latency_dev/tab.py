import json,sys,statistics as st
runs=[json.load(open(f)) for f in sys.argv[1:]]
impls=[]
tab={}
for ri,d in enumerate(runs):
  for r in d['results']:
    s=r['shape']; t=r.get('timing',{}).get('graph')
    if not t or not r.get('supported'): continue
    key='%dx%dx%d:%dx%d%s'%(s['batch'],s['heads'],s['seq_q'],s['seq_kv'],s['head_dim'],' c' if s['causal'] else '')
    if r['impl'] not in impls: impls.append(r['impl'])
    tab.setdefault(key,{}).setdefault(r['impl'],[]).append(st.median(t['samples_us']))
print('%-18s'%''+''.join('%14s'%i[:12] for i in impls))
for k,v in tab.items():
  print('%-18s'%k+''.join('%14s'%('/'.join('%.2f'%x for x in v.get(i,[]))) for i in impls))
