// A table drawn from a packed picture (service/ui/picture.py, `pack`): Table.draw(root, state, {width, onTap}).
// Shipped inside the widget (4096 bytes compressed, with the cards): short names, one statement a line.
// service/cards/widget.py drops these comment lines, trims each line and joins them, so every line ends where JavaScript needs no break.
var Table=(function(){
// The look: a felt table; the moves in the chat buttons' tones (1 go, 2 call, 3 danger), a call alone (the response) big; V: the table as text, read aloud in place of the drawing.
var I=Math.min,S=".T{background:#1f5f45;color:#fff;font-family:sans-serif;text-align:center}.T,.T *{margin:0}.V{position:absolute;clip:rect(0 0 0 0)}"
+".p,.m,.a{display:flex;flex-wrap:wrap;gap:4px;padding:4px;justify-content:center;align-items:center}.p a{flex:1 1 30%;background:#0003;white-space:nowrap;overflow:hidden}"
+".p .A{background:#a70}.Y,.u{font-weight:700}.O,.x{filter:brightness(.6)}.h{position:relative}.c{position:absolute;padding:0;border:0;background:0}"
+".b{flex:auto;font:inherit;padding:.5em;border:0;border-radius:8px;background:#0006;color:#fff}.t1{background:#272}.t2{background:#25b}.t3{background:#c22}"
+".t2:only-child{font-size:1.6em}.y{font-size:.85em}";
function e(t){return t.replace(/&/g,"&amp;").replace(/</g,"&lt;").replace(/'/g,"&#39;")}
function draw(r,s,o){
s=s.v?s:JSON.parse(s);
// Built once: the table, the status line (read aloud as it changes), the hand and moves.
if(!r.T){r.className="T";r.innerHTML="<style>"+S+"</style><div></div><p class=u role=status></p><div></div>";
r.T=r.childNodes}
var W=o.width||r.clientWidth,u=I(W/360,2),d=s.s=="e"?"spanish":"french",N=s.n,P=s.p,H=s.h,M=s.m,Q=s.q,a="",m="",h="",v="",k=H.length,w=W-8,any;
function n(c){return N[c]||c}
function who(i){return e(P[i][0])}
function fig(c,t){m+="<a>"+c+"<br>"+t+"</a>"}
var T=r.T,cw=I(62*u,(W-20)/Math.max(M.length+Q.length,4)-6);
r.style.fontSize=13*u+"px";
P.forEach(function(p){var f=p[3],t=(f&1?"▶ ":"")+e(p[0])+(f&8?" 🤖":"")+"<br>",c=" "+p[1]+(p[2]?" · "+e(p[2]):"");
a+="<a class='"+(f&1?"A ":"")+(f&2?"Y ":"")+(f&4?"O":"")+"'>"+t+Cards.back(d,12*u,"")+c+"</a>";v+=t+c+". "});
M.forEach(function(c){fig(Cards.face(c[1],d,cw,""),who(c[0]));v+=e(n(c[1]))+" "+who(c[0])+". "});
Q.forEach(function(q){fig(Cards.back(d,cw*.8,""),q);v+="🂠"+q+". "});
if(s.w!=null){fig("➜",who(s.w));v+="➜ "+who(s.w)+". "}
T[1].innerHTML="<p class=V>"+e(s.t)+". "+v+H.map(function(q){return e(n(q[0]))}).join(", ")+"</p><div aria-hidden=true class=p>"+a+"</div><div aria-hidden=true class=m>"+m+"</div>";
if(T[2].textContent!=s.u)T[2].textContent=s.u;
// The hand fanned as service.cards.faces.fan lays it out: legal cards raised and tappable, the others dimmed while some may be played.
var c=I(90*u,130,w*100/(73+27*k)),g=I(c+4,(w-c)/(k-1||1)),y=c/5,x=4+(w-c-g*(k-1))/2;
H.forEach(function(q){any=any||q[1]});
H.forEach(function(q,i){var t=" style='left:"+(x+i*g)+"px;top:"+(q[1]||!any?0:y)+"px'>"+Cards.face(q[0],d,c,"");
h+=q[1]?"<button class=c data-t='"+e(q[1])+"' aria-label='"+e(n(q[0]))+"'"+t+"</button>":"<a class='c"+(any?" x":"")+"'"+t+"</a>"});
h="<div class=h style='height:"+(k?c*1.4+y:0)+"px'>"+h+"</div><div class=a>";
s.a.forEach(function(b){h+="<button class='b t"+b[2]+"' data-t='"+e(b[1])+"'>"+e(b[0])+"</button>"});
h+="</div><p class=y>";
s.y.forEach(function(l){h+=e(l)+"<br>"});
T[3].innerHTML=h;
r.onclick=function(b){b=b.target.closest("[data-t]");b&&o.onTap&&o.onTap(s.k+b.dataset.t)}}
return{draw:draw}})();
